"""Tenants over real HTTP: every endpoint that returns stored data, asked by the key that made
the record, by another tenant's key and by an admin key; roles; keys made, rotated and revoked
while the service runs; one rate limit shared by every process on one database."""

import asyncio

import pytest
from running import run_app, sealing_config
from test_cycles_http import SPEC

from cli_keys import keys_command, secret_of
from jurist.autonomy import AutonomyStore, CycleStatus, LoopState
from jurist.server import ServiceSettings, create_app, new_key
from jurist.settings import Settings
from jurist.store import KeyStore
from service_script import ServiceScript, scripted_model

SCHEMA_ONLY = {
    "output": {"answer": "ok"},
    "validation_types": ["schema"],
    "expected_schema": {"type": "object", "required": ["answer"]},
}
ALICE, BOB, ROOT = new_key()[0], new_key()[0], new_key()[0]
KEYS = f"alice:{ALICE},bob:{BOB},root:admin:{ROOT}"
SCRIPT = ServiceScript(criteria={"The answer is polite": 0.9})


def not_found_body(client, path: str) -> dict:
    """What a caller gets for an id that exists nowhere, with the id put back as `{id}`."""
    missing = "0" * 32
    body = client.get(path.format(id=missing)).json()
    return {**body, "message": body["message"].replace(missing, "{id}")}


def cycle_owned_by(database: str, key_id: str | None, name: str) -> str:
    async def write() -> str:
        async with await AutonomyStore.open(database) as store:
            spec = SPEC.model_dump(mode="json")
            cycle = await store.create_cycle(spec, name=name, key_id=key_id)
            state = LoopState(prompt=SPEC.prompt, baseline_score=0.2, score=0.2)
            await store.update_cycle(cycle, CycleStatus.RUNNING, state.model_dump(mode="json"))
            return cycle

    return asyncio.run(write())


@pytest.mark.parametrize("database", ["sqlite", "postgresql"], indirect=True)
def test_every_stored_record_is_read_by_its_tenant_and_admins_only(serve, database):
    running = serve(SCRIPT, config={"JURIST_API_KEYS": KEYS})
    with (
        running.client(ALICE) as alice,
        running.client(BOB) as bob,
        running.client(ROOT) as root,
    ):
        validated = alice.post("/validate", json=SCHEMA_ONLY).json()["metadata"]
        judged = alice.post(
            "/judge",
            json={"context": {"output": "Thank you!"}, "criteria": ["The answer is polite"]},
        )
        assert judged.status_code == 200
        records = {
            "/validations/{id}": validated["validation_id"],
            "/judgments/{id}": judged.json()["id"],
        }
        # The judgment behind a validation's layer is the validation's tenant's too.
        records["/judgments/{id}#layer"] = validated["layers"]["schema"]["judgment_id"]
        for name, record in records.items():
            path = name.partition("#")[0]
            url = path.format(id=record)
            assert alice.get(url).status_code == 200, url
            assert root.get(url).status_code == 200, url
            refused = bob.get(url)
            assert refused.status_code == 404, url
            # Exactly the answer to an id that does not exist: nothing tells them apart.
            body = refused.json()
            as_missing = {**body, "message": body["message"].replace(record, "{id}")}
            assert as_missing == not_found_body(bob, path)


@pytest.mark.parametrize("database", ["sqlite", "postgresql"], indirect=True)
def test_cycles_are_listed_read_and_decided_by_their_tenant_and_admins(serve, database):
    running = serve(config={"JURIST_API_KEYS": KEYS})
    alices = cycle_owned_by(database, "alice", "alices")
    operators = cycle_owned_by(database, None, "operators")
    with (
        running.client(ALICE) as alice,
        running.client(BOB) as bob,
        running.client(ROOT) as root,
    ):
        assert [c["id"] for c in alice.get("/cycles").json()] == [alices]
        assert bob.get("/cycles").json() == []
        assert {c["id"] for c in root.get("/cycles").json()} == {alices, operators}
        assert alice.get(f"/cycles/{alices}").status_code == 200
        assert alice.get(f"/cycles/{operators}").status_code == 404
        assert bob.get(f"/cycles/{alices}").status_code == 404
        assert root.get(f"/cycles/{operators}").status_code == 200
        # Approving is an administrator's act, even on one's own cycle.
        decision = {"approve": False, "note": "not now"}
        refused = alice.post(f"/cycles/{alices}/approve", json=decision)
        assert refused.status_code == 403
        assert refused.json()["error"] == "forbidden"
        assert bob.post(f"/cycles/{alices}/approve", json=decision).status_code == 403
        # 409: nothing waits on this cycle; the point is that an admin gets past the role.
        assert root.post(f"/cycles/{alices}/approve", json=decision).status_code == 409


def test_only_admins_manage_keys(serve):
    running = serve(config={"JURIST_API_KEYS": KEYS})
    with running.client(ALICE) as alice, running.client(ROOT) as root:
        assert alice.get("/keys").status_code == 403
        assert alice.post("/keys", json={"id": "mallory", "role": "admin"}).status_code == 403
        assert alice.delete("/keys/bob").status_code == 403
        assert root.get("/keys").status_code == 200
        made = root.post("/keys", json={"id": "carol"})
        assert made.status_code == 201
        assert made.json()["key"]["role"] == "user"


def test_keys_made_rotated_and_revoked_at_run_time_take_effect_without_a_restart(serve, database):
    running = serve()  # no key configured: the operator alone, on the loopback interface
    with running.client() as operator:
        made = operator.post("/keys", json={"id": "root", "role": "admin"})
        assert made.status_code == 201
        root_secret = made.json()["secret"]
    # The first key turned authentication on.
    with running.client() as anonymous:
        assert anonymous.post("/validate", json=SCHEMA_ONLY).status_code == 401
    with running.client(root_secret) as root:
        carol = root.post("/keys", json={"id": "carol", "rate_limit": "100/minute"}).json()
        assert root.post("/keys", json={"id": "carol"}).status_code == 409
        bad_rate = root.post("/keys", json={"id": "dave", "rate_limit": "fast"})
        assert bad_rate.status_code == 422
        assert [e["field"] for e in bad_rate.json()["errors"]] == ["rate_limit"]
        first = carol["secret"]
        with running.client(first) as client:
            assert client.post("/validate", json=SCHEMA_ONLY).status_code == 200
        rotated = root.post("/keys/carol/rotate", json={"grace_s": 3600}).json()
        assert rotated["key"]["id"] == "carol"
        second = rotated["secret"]
        with running.client(first) as old, running.client(second) as new:
            assert old.post("/validate", json=SCHEMA_ONLY).status_code == 200  # grace
            assert new.post("/validate", json=SCHEMA_ONLY).status_code == 200
        third = root.post("/keys/carol/rotate", json={"grace_s": 0}).json()["secret"]
        with running.client(second) as old, running.client(third) as new:
            assert old.post("/validate", json=SCHEMA_ONLY).status_code == 401
            assert new.post("/validate", json=SCHEMA_ONLY).status_code == 200
        assert root.delete("/keys/carol").json()["active"] is False
        with running.client(third) as revoked:
            assert revoked.post("/validate", json=SCHEMA_ONLY).status_code == 401
        listed = {k["id"]: k["active"] for k in root.get("/keys").json()}
        assert listed == {"root": True, "carol": False}
        assert root_secret not in str(root.get("/keys").json())


def _second_process(database: str, tmp_path, config: dict[str, str]):
    """Another service on the same database, as another worker or replica would be."""
    app = create_app(
        Settings(
            JURIST_HOME=str(tmp_path / "second"),
            JURIST_CACHE="0",
            JURIST_DATABASE_URL=database,
        ),
        ServiceSettings(LOG_LEVEL="warning", **sealing_config(database, config)),
        model=scripted_model(ServiceScript()),
    )
    return run_app(app)


def test_a_key_revoked_elsewhere_stops_working_here(serve, database, tmp_path):
    secret, digest = new_key()

    async def store_key() -> None:
        async with await KeyStore.open(database) as keys:
            await keys.create("erin", digest)

    asyncio.run(store_key())
    config = {"JURIST_RATE_LIMIT": "none", "JURIST_KEY_CACHE_S": "0"}
    running = serve(config=config)
    other = _second_process(database, tmp_path, config)
    try:
        with running.client(secret) as here:
            assert here.post("/validate", json=SCHEMA_ONLY).status_code == 200

            async def revoke() -> None:  # as `jurist keys revoke erin` does
                async with await KeyStore.open(database) as keys:
                    await keys.revoke("erin")

            asyncio.run(revoke())
            assert here.post("/validate", json=SCHEMA_ONLY).status_code == 401
        # With its last key revoked, the service stays closed: it never falls open.
        with running.client() as anonymous:
            assert anonymous.post("/validate", json=SCHEMA_ONLY).status_code == 401
        with other.client(secret) as there:
            assert there.post("/validate", json=SCHEMA_ONLY).status_code == 401
    finally:
        other.stop()


@pytest.mark.parametrize("database", ["sqlite", "postgresql"], indirect=True)
@pytest.mark.parametrize(("storage", "allowed"), [("database", 4), ("memory", 8)])
def test_one_rate_limit_holds_across_processes_on_one_database(
    serve, database, tmp_path, storage, allowed
):
    config = {
        "JURIST_API_KEYS": f"alice:{ALICE}",
        "JURIST_RATE_LIMIT": "4/hour",
        "JURIST_RATE_LIMIT_STORAGE": storage,
    }
    running = serve(config=config)
    other = _second_process(database, tmp_path, config)
    try:
        with running.client(ALICE) as here, other.client(ALICE) as there:
            answers = [
                (here if i % 2 else there).post("/validate", json=SCHEMA_ONLY).status_code
                for i in range(12)
            ]
    finally:
        other.stop()
    # Counted in the database, two processes allow what one does; counted in each
    # process's memory, each allows the whole limit (documented as such).
    assert answers.count(200) == allowed
    assert answers.count(429) == 12 - allowed


def test_a_key_with_its_own_rate_limit_is_held_to_it(serve, database):
    secret, digest = new_key()

    async def store_key() -> None:
        async with await KeyStore.open(database) as keys:
            await keys.create("frank", digest, rate_limit="2/hour")

    asyncio.run(store_key())
    running = serve(config={"JURIST_RATE_LIMIT": "100/hour"})
    with running.client(secret) as frank:
        codes = [frank.post("/validate", json=SCHEMA_ONLY).status_code for _ in range(3)]
    assert codes == [200, 200, 429]


def test_a_running_service_follows_the_command_without_a_restart(serve, database):
    running = serve(config={"JURIST_KEY_CACHE_S": "0"})
    secret = secret_of(keys_command(database, "new", "ops").stdout)
    with running.client(secret) as ops, running.client() as anonymous:
        assert ops.post("/validate", json=SCHEMA_ONLY).status_code == 200
        assert anonymous.post("/validate", json=SCHEMA_ONLY).status_code == 401
        rotated = secret_of(keys_command(database, "rotate", "ops").stdout)
        assert ops.post("/validate", json=SCHEMA_ONLY).status_code == 401
        with running.client(rotated) as renewed:
            assert renewed.post("/validate", json=SCHEMA_ONLY).status_code == 200
            keys_command(database, "revoke", "ops")
            assert renewed.post("/validate", json=SCHEMA_ONLY).status_code == 401
