"""Personal data at rest: known values sent through POST /validate (every layer's fields) and
POST /judge are found in no table of the database and in no line the service logs, whether
content is stored sealed (the default: encrypted, the plain columns an outline) or redacted
(with JURIST_STORE_RAW, the raw copy sealed beside it). Sealed content is shown again as it
was to the key that made the record, and redacted at read time to anyone else.

The scan reflects every table the database has (not a list of the ones expected to hold
content), so a table added later is scanned too.
"""

import asyncio
import json
import logging
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
import sqlalchemy as sa
from cryptography.fernet import Fernet
from running import Running

from jurist.judges import Passage, UnknownSource
from jurist.llm import Request, Response
from jurist.store import create_engine
from scripted import with_logprobs
from service_script import ServiceScript

# What the redactor catches today: planted in every field a caller can fill.
PII = {
    "email": "ada.lovelace@example.org",
    "phone": "+44 20 7946 0958",
    "ssn": "536-22-8145",
    "card": "4111 1111 1111 1111",
    "iban": "GB82 WEST 1234 5698 7654 32",
    "ip": "203.0.113.54",
}
# A person's name and a street address: caught once the redactor finds names and places.
NAME_AND_ADDRESS = {"name": "Margaret Hamilton", "address": "742 Evergreen Terrace, Springfield"}

POLICY = "Refunds are paid within 30 days to the account the customer names."


def _variants(values: dict[str, str]) -> list[str]:
    """Each value, and each written without its spaces (a card or IBAN stored compact)."""
    found = set(values.values())
    found |= {value.replace(" ", "") for value in values.values()}
    return sorted(found)


@dataclass
class Planted:
    """A customer's message, a criterion, a claim and a quote, each holding the values."""

    values: dict[str, str]
    output: str = field(init=False)
    criterion: str = field(init=False)
    claim: str = field(init=False)
    quote: str = field(init=False)

    def __post_init__(self) -> None:
        v = self.values
        who = f"{v['name']} of {v['address']}, " if "name" in v else ""
        self.output = (
            f"Dear {who}we wrote to {v['email']} and will call {v['phone']}. Your SSN "
            f"{v['ssn']} is on file, card {v['card']} was charged, the refund goes to IBAN "
            f"{v['iban']}, and the sign-in came from IP {v['ip']}."
        )
        self.criterion = f"The reply confirms the refund to IBAN {v['iban']} for {v['email']}"
        self.claim = f"The refund to IBAN {v['iban']} is paid within 30 days to {v['email']}"
        self.quote = f"card {v['card']} was charged"

    def validate_request(self) -> dict[str, Any]:
        v = self.values
        return {
            "output": {"reply": self.output, "contact": v["email"], "phone": v["phone"]},
            "validation_types": ["schema", "facts", "criteria", "hallucination", "quality"],
            "acceptance_criteria": [self.criterion],
            # The output breaks the schema, so its violations quote the values back.
            "expected_schema": {
                "type": "object",
                "required": ["reply", "ticket"],
                "properties": {
                    "contact": {"type": "string", "maxLength": 5},
                    "phone": {"type": "string", "pattern": "^[0-9]+$"},
                    "reply": {"type": "string", "description": f"never mention {v['ssn']}"},
                },
            },
            "trusted_sources": ["policy"],
            "context": {
                "task": f"Answer the customer signed in from {v['ip']}",
                "transcript": self.output,
                "account": {"iban": v["iban"], "card": v["card"]},
            },
        }

    def judge_request(self) -> dict[str, Any]:
        return {
            "context": {
                "goal": f"Reply to {self.values['email']}",
                "output": self.output,
                "context": [self.output],
                "reference": self.output,
            },
            "criteria": [self.criterion],
        }


class EchoScript(ServiceScript):
    """Answers as ServiceScript does, but every criterion verdict's reason repeats the output,
    as a model explaining itself does."""

    echo: str = ""

    def __call__(self, request: Request) -> Response:
        schema = request.json_schema or {}
        if "answer" in schema.get("properties", {}):
            reason = f"It says: {self.echo}"
            return with_logprobs(
                '{"answer": "',
                ("yes", {"yes": 0.9, "no": 0.1}),
                f'", "reason": {json.dumps(reason)}}}',
            )
        return super().__call__(request)


class Policy:
    """The trusted sources: one passage with no personal data in it."""

    async def retrieve(self, query: str, sources: Any, limit: int) -> list[Passage]:
        return [Passage(POLICY, "policy", "refunds")]

    async def check_sources(self, sources: Any) -> None:
        for source in sources:
            if source != "policy":
                raise UnknownSource(source, ["policy"])


def _script(planted: Planted) -> EchoScript:
    script = EchoScript(
        claims=[planted.claim], support={planted.claim: (0.9, planted.quote)}, lenient=True
    )
    script.echo = planted.output
    return script


class LogKeeper(logging.Handler):
    """Every record the service's loggers emit, with its extra fields, as text. Attached
    once the service is built: building it sets its loggers' handlers."""

    names = ("jurist", "uvicorn", "uvicorn.error", "")

    def __init__(self) -> None:
        super().__init__(logging.DEBUG)
        self.lines: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.lines.append(f"{record.getMessage()} {record.__dict__}")

    def attach(self) -> None:
        for name in self.names:
            logging.getLogger(name).addHandler(self)

    def detach(self) -> None:
        for name in self.names:
            logging.getLogger(name).removeHandler(self)

    @property
    def text(self) -> str:
        return "\n".join(self.lines)


@pytest.fixture
def logs() -> Iterator[LogKeeper]:
    keeper = LogKeeper()
    yield keeper
    keeper.detach()


def dump_database(url: str) -> dict[str, list[str]]:
    """Every row of every table the database holds, as text, by table."""

    async def dump() -> dict[str, list[str]]:
        engine = create_engine(url)
        try:
            async with engine.connect() as connection:

                def reflect(sync: sa.Connection) -> sa.MetaData:
                    metadata = sa.MetaData()
                    metadata.reflect(sync)
                    return metadata

                metadata = await connection.run_sync(reflect)
                tables = {}
                for table in metadata.sorted_tables:
                    rows = (await connection.execute(sa.select(table))).all()
                    tables[table.name] = [repr(tuple(row)) for row in rows]
                return tables
        finally:
            await engine.dispose()

    return asyncio.run(dump())


def _sqlite_files(url: str) -> list[Path]:
    path = Path(url.removeprefix("sqlite:///"))
    return [p for p in (path, Path(f"{path}-wal")) if p.exists()]


def _leaks(text: str, values: dict[str, str]) -> list[str]:
    return [value for value in _variants(values) if value in text]


def _exercise(running: Running, planted: Planted, key: str | None = None) -> dict[str, Any]:
    with running.client(key) as client:
        validated = client.post("/validate", json=planted.validate_request())
        assert validated.status_code == 200, validated.text
        judged = client.post("/judge", json=planted.judge_request())
        assert judged.status_code == 200, judged.text
        # A judge spec names its judge as the caller likes, personal data included.
        spec = {
            "context": planted.judge_request()["context"],
            "judge": {
                "type": "criteria",
                "name": f"check for {planted.values['email']}",
                "criteria": [planted.criterion],
            },
        }
        named = client.post("/judge", json=spec)
        assert named.status_code == 200, named.text
        assert named.json()["judge"] == spec["judge"]["name"]
    return {"validation": validated.json(), "judgment": judged.json(), "named": named.json()}


def _assert_answers_are_the_callers_own(answers: dict[str, Any], planted: Planted) -> None:
    """The answers of the POSTs are the full results, not the stored, redacted copy."""
    validation = json.dumps(answers["validation"])
    judgment = json.dumps(answers["judgment"])
    assert planted.criterion in validation  # passed_criteria names it as asked
    assert planted.values["email"] in validation
    assert planted.output in json.dumps(answers["judgment"]["judgment"]["checks"])
    assert answers["judgment"]["redacted"] is False
    assert planted.criterion in judgment


def _assert_stored_content_holds_the_values(answers: dict[str, Any], planted: Planted) -> None:
    # The scan finds nothing only if the values were there to be found: the answers (what
    # the store would have held unredacted) carry every one of them.
    everything = json.dumps(answers)
    assert _leaks(everything, planted.values) != []
    for value in planted.values.values():
        assert value in everything, value


def _scan(running: Running, database: str, planted: Planted, logs: str) -> dict[str, list[str]]:
    tables = dump_database(database)
    for name in ("validations", "judgments", "audit_log"):
        assert tables[name], f"nothing was stored in {name}: the scan proves nothing"
    leaks = {
        name: found
        for name, rows in tables.items()
        if (found := _leaks("\n".join(rows), planted.values))
    }
    assert leaks == {}, f"personal data at rest: {leaks}"
    if database.startswith("sqlite"):
        for path in _sqlite_files(database):
            raw = path.read_bytes().decode("latin-1")
            assert _leaks(raw, planted.values) == [], path.name
    assert _leaks(logs, planted.values) == []
    return tables


def _run_and_scan(  # noqa: PLR0917 - the fixtures, then what to plant and how to store
    serve, database, capfd, logs, values: dict[str, str], content: str
) -> None:
    planted = Planted(values)
    config = {"LOG_LEVEL": "debug", "JURIST_STORE_CONTENT": content}
    if content == "sealed":
        config["JURIST_ENCRYPTION_KEY"] = Fernet.generate_key().decode()
    running = serve(_script(planted), config=config, retriever=Policy())
    logs.attach()
    answers = _exercise(running, planted)
    _assert_answers_are_the_callers_own(answers, planted)
    _assert_stored_content_holds_the_values(answers, planted)
    with running.client() as client:
        validation_id = answers["validation"]["metadata"]["validation_id"]
        stored = client.get(f"/validations/{validation_id}").json()
        judgment = client.get(f"/judgments/{answers['judgment']['id']}").json()
        layer_judgments = [
            client.get(f"/judgments/{layer['judgment_id']}").json()
            for layer in answers["validation"]["metadata"]["layers"].values()
            if "judgment_id" in layer
        ]
    assert len(layer_judgments) == 5  # one per layer
    if content == "sealed":
        # Without API keys every reader is the operator, who made every record: the content
        # comes back unsealed, exactly as answered.
        for body in (stored, judgment, *layer_judgments):
            assert body["redacted"] is False
            assert body["raw_copy"] == "shown"
        assert stored["result"] == answers["validation"]
        sent = planted.validate_request()
        for name in ("output", "context", "acceptance_criteria", "expected_schema"):
            assert stored["request"][name] == sent[name], name
        assert judgment["judgment"] == answers["judgment"]["judgment"]
    else:
        for body in (stored, judgment, *layer_judgments):
            assert body["redacted"] is True
            assert body["raw_copy"] == "none"
            assert _leaks(json.dumps(body), planted.values) == []
        # The redacted copy still says what happened, and names its own records.
        assert stored["result"]["valid"] == answers["validation"]["valid"]
        assert stored["result"]["metadata"]["validation_id"] == validation_id
        assert "<EMAIL_ADDRESS>" in json.dumps(stored["request"])
        assert "<IBAN_CODE>" in json.dumps(judgment["judgment"])
    running.stop()
    captured = capfd.readouterr()
    tables = _scan(running, database, planted, captured.out + captured.err + logs.text)
    if content == "sealed":
        _assert_plain_columns_are_outlines(tables, database, answers)


def _assert_plain_columns_are_outlines(
    tables: dict[str, list[str]], database: str, answers: dict[str, Any]
) -> None:
    """Sealed: every stored record is sealed, its plain content an outline that still
    names its records and says what happened; the redactor finds nothing to replace in
    them, since nothing the caller wrote is there (no <ENTITY> marker anywhere)."""
    assert len(_sealed(database)) == 1 + 5 + 2
    assert all(token for token in _sealed(database).values())
    everything = "\n".join(row for rows in tables.values() for row in rows)
    assert "<EMAIL_ADDRESS>" not in everything
    assert "<IBAN_CODE>" not in everything
    validation = answers["validation"]
    assert validation["metadata"]["validation_id"] in "\n".join(tables["validations"])
    assert (
        "'outline': True" in tables["validations"][0]
        or '"outline": true' in (tables["validations"][0])
    )


CONTENT = pytest.mark.parametrize("content", ["sealed", "redacted"])


@CONTENT
@pytest.mark.parametrize("database", ["sqlite", "postgresql"], indirect=True)
def test_no_planted_value_is_stored_or_logged(serve, database, capfd, logs, content):
    _run_and_scan(serve, database, capfd, logs, PII, content)


@CONTENT
@pytest.mark.parametrize("database", ["sqlite", "postgresql"], indirect=True)
def test_no_name_or_street_address_is_stored_or_logged(serve, database, capfd, logs, content):
    _run_and_scan(serve, database, capfd, logs, {**PII, **NAME_AND_ADDRESS}, content)


@CONTENT
@pytest.mark.parametrize("database", ["sqlite", "postgresql"], indirect=True)
def test_raw_content_is_kept_only_sealed_and_shown_to_its_owner(
    serve, database, capfd, logs, content
):
    key = Fernet.generate_key().decode()
    owner, other, admin = ("o" * 20, "t" * 20, "a" * 20)
    planted = Planted(PII)
    running = serve(
        _script(planted),
        config={
            "LOG_LEVEL": "debug",
            "JURIST_STORE_CONTENT": content,
            # Sealed content is raw already: the setting only matters to redacted records.
            "JURIST_STORE_RAW": "true" if content == "redacted" else "false",
            "JURIST_ENCRYPTION_KEY": key,
            "JURIST_API_KEYS": f"alice:{owner},bob:{other},root:admin:{admin}",
        },
        retriever=Policy(),
    )
    logs.attach()
    answers = _exercise(running, planted, key=owner)
    _assert_answers_are_the_callers_own(answers, planted)
    assert answers["judgment"]["raw_copy"] == "shown"
    validation_id = answers["validation"]["metadata"]["validation_id"]
    judgment_id = answers["judgment"]["id"]
    with running.client(owner) as alice:
        stored = alice.get(f"/validations/{validation_id}").json()
        judgment = alice.get(f"/judgments/{judgment_id}").json()
        named = alice.get(f"/judgments/{answers['named']['id']}").json()
    if content == "sealed":  # the name a spec gave its judge is content, sealed with it
        assert named["judge"] == answers["named"]["judge"]
    # The owner gets back exactly what was answered.
    assert stored["raw_copy"] == "shown"
    assert stored["redacted"] is False
    assert stored["result"] == answers["validation"]
    assert stored["request"]["output"]["reply"] == planted.output
    assert judgment["raw_copy"] == "shown"
    assert judgment["judgment"] == answers["judgment"]["judgment"]
    with running.client(other) as bob:
        assert bob.get(f"/validations/{validation_id}").status_code == 404
    with running.client(admin) as root:
        seen = root.get(f"/validations/{validation_id}")
        seen_judgment = root.get(f"/judgments/{judgment_id}")
        seen_named = root.get(f"/judgments/{answers['named']['id']}")
    # An administrator reads every tenant's records, but only redacted (sealed: redacted
    # now, at read time, from the unsealed content).
    for answer in (seen, seen_judgment, seen_named):
        assert answer.status_code == 200
        assert answer.json()["raw_copy"] == "withheld"
        assert answer.json()["redacted"] is True
        assert _leaks(answer.text, planted.values) == []
    assert "<EMAIL_ADDRESS>" in json.dumps(seen.json()["request"])
    assert "<IBAN_CODE>" in json.dumps(seen_judgment.json()["judgment"])
    # Redacted, the content keeps its shape and its ids.
    assert seen.json()["result"]["metadata"]["validation_id"] == validation_id
    assert seen.json()["result"]["valid"] == answers["validation"]["valid"]
    assert "<EMAIL_ADDRESS>" in seen_named.json()["judge"]
    running.stop()
    captured = capfd.readouterr()
    tables = _scan(running, database, planted, captured.out + captured.err + logs.text)
    # The sealed column is ciphertext that opens, with the key, to the raw content.
    sealed = _sealed(database)
    assert len(sealed) == 1 + 5 + 2  # the validation, its five layers, the POST /judge ones
    fernet = Fernet(key.encode())
    opened = [json.loads(fernet.decrypt(token.encode())) for token in sealed.values()]
    assert all(token.startswith("gAAAAA") for token in sealed.values())
    assert any(planted.output in json.dumps(item) for item in opened)
    assert {item["id"] for item in opened} == set(sealed)
    assert tables["validations"]


def _sealed(url: str) -> dict[str, str]:
    async def read() -> dict[str, str]:
        engine = create_engine(url)
        try:
            async with engine.connect() as connection:
                found: dict[str, str] = {}
                for table in ("validations", "judgments"):
                    rows = await connection.execute(sa.text(f"SELECT id, sealed FROM {table}"))
                    found |= {str(row[0]): row[1] for row in rows}
                return found
        finally:
            await engine.dispose()

    return asyncio.run(read())


@CONTENT
def test_a_record_sealed_with_a_key_rotated_away_comes_back_redacted_and_says_so(
    serve, tmp_path, content
):
    old, new = Fernet.generate_key().decode(), Fernet.generate_key().decode()
    planted = Planted(PII)
    mode = {"JURIST_STORE_CONTENT": content}
    first = serve(
        _script(planted),
        config={**mode, "JURIST_STORE_RAW": "true", "JURIST_ENCRYPTION_KEY": old},
        retriever=Policy(),
    )
    answers = _exercise(first, planted)
    first.stop()
    validation_id = answers["validation"]["metadata"]["validation_id"]
    judgment_id = answers["judgment"]["id"]

    # Rotated: the old key still unseals.
    rotated = serve(
        _script(planted),
        config={**mode, "JURIST_ENCRYPTION_KEY": f"{new},{old}"},
        retriever=Policy(),
    )
    with rotated.client() as client:
        assert client.get(f"/validations/{validation_id}").json()["raw_copy"] == "shown"
    rotated.stop()

    # The old key dropped: what only it sealed is shown redacted, and said to be unreadable.
    dropped = serve(
        _script(planted), config={**mode, "JURIST_ENCRYPTION_KEY": new}, retriever=Policy()
    )
    with dropped.client() as client:
        stored = client.get(f"/validations/{validation_id}")
        judgment = client.get(f"/judgments/{judgment_id}")
    assert stored.status_code == 200
    assert stored.json()["raw_copy"] == "unreadable"
    assert stored.json()["redacted"] is True
    assert judgment.json()["raw_copy"] == "unreadable"
    assert _leaks(stored.text + judgment.text, planted.values) == []
    if content == "sealed":
        # All that is left is the outline: what happened, and no content.
        assert stored.json()["result"]["outline"] is True
        assert stored.json()["result"]["valid"] == answers["validation"]["valid"]
        assert set(stored.json()["request"]["validation_types"]) == set(
            planted.validate_request()["validation_types"]
        )
        assert judgment.json()["judgment"]["outline"] is True
        assert judgment.json()["judgment"]["status"] == answers["judgment"]["status"]
