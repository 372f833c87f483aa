"""The severity policy: each kind of finding's severity (defaults, the settings'
JURIST_VALIDATION_SEVERITY, a request's severity_policy, in that order of precedence), and
the agreement between each layer's verdict and the result's validity, in every case."""

import itertools
import json
import re
from pathlib import Path

import pytest
from pydantic import ValidationError

from jurist.core import Cause
from jurist.judges import Passage
from jurist.llm import ErrorKind, ModelError, Request, Response
from jurist.server._config import ConfigError, load_config
from jurist.settings import Settings
from jurist.validation import (
    DEFAULT_POLICY,
    FINDING_KINDS,
    IssueType,
    LayerOutcome,
    LayerReading,
    Severity,
    SeverityPolicy,
    ValidationIssue,
    ValidationRequest,
    ValidationResult,
    ValidationType,
    Validator,
)
from scripted import with_logprobs
from service_script import ServiceScript, scripted_model

SCHEMA = {"type": "object", "required": ["answer"], "properties": {"answer": {"type": "string"}}}
CRITERION = "The answer states the return window"
SOURCE = "Refunds go back to the original card within 10 business days."
CONTEXT = {"question": "How do refunds work?", "policy": SOURCE}
HOLDS = "Refunds go back to the original card."
# A number the source states otherwise: an exact check shows it wrong, no model needed.
WRONG_NUMBER = "Refunds go back to the original card within 5 business days."
# Every word of it is in the source; the scripted model answers "contradicted".
DENIED = "Refunds do not go back to the original card."
# A name the source never mentions: nothing states otherwise, so it is unverified.
UNKNOWN_NAME = "Refunds are handled by Stripe."
ALL_GOOD = {"completeness": 5, "clarity": 5, "consistency": 5}
UNCLEAR = {"completeness": 5, "clarity": 1, "consistency": 5}


class PolicyScript(ServiceScript):
    """The service script, with a "contradicted" verdict for the claims in `denied`."""

    def __init__(self, *, denied: tuple[str, ...] = (), **tables: object) -> None:
        super().__init__(**tables)  # type: ignore[arg-type]
        self.denied = denied

    def __call__(self, request: Request) -> Response:
        claim = request.messages[-1].content.rstrip().rsplit("Claim: ", 1)[-1]
        asks_verdict = "verdict" in (request.json_schema or {}).get("properties", {})
        if asks_verdict and claim in self.denied:
            odds = {"supported": 0.02, "contradicted": 0.9, "not_mentioned": 0.08}
            return with_logprobs('{"verdict": "', ("contradicted", odds), '", "quote": ""}')
        return super().__call__(request)


class Handbook:
    """A knowledge base of one passage (or none)."""

    def __init__(self, *texts: str) -> None:
        self.passages = [Passage(text, "handbook", "refunds") for text in texts]

    async def retrieve(self, query, sources, limit):
        return self.passages

    async def check_sources(self, sources):
        return None


def supported(*claims: str) -> dict[str, tuple[float, str]]:
    return {claim: (0.97, claim) for claim in claims}


def not_supported(*claims: str) -> dict[str, tuple[float, str]]:
    return {claim: (0.1, "") for claim in claims}


# -- the table itself -----------------------------------------------------------------------


def test_every_kind_of_finding_has_one_documented_default():
    assert set(FINDING_KINDS) == set(IssueType) - {IssueType.LAYER_ERROR}
    assert set(FINDING_KINDS) == set(SeverityPolicy.model_fields)
    assert all(field.description for field in SeverityPolicy.model_fields.values())
    errors = {kind for kind in FINDING_KINDS if DEFAULT_POLICY.of(kind) is Severity.ERROR}
    assert errors == {
        "schema_violation",
        "contradicted_fact",
        "contradicted_claim",
        "criteria_not_met",
    }
    assert DEFAULT_POLICY.of("unverified_fact") is Severity.WARNING
    assert DEFAULT_POLICY.of("unsupported_claim") is Severity.WARNING
    assert DEFAULT_POLICY.of(IssueType.LAYER_ERROR) is Severity.ERROR


def test_a_layer_error_is_an_error_whatever_the_policy():
    everything_info = DEFAULT_POLICY.overridden(dict.fromkeys(FINDING_KINDS, "info"))
    assert everything_info.of(IssueType.LAYER_ERROR) is Severity.ERROR
    with pytest.raises(ValueError, match="'layer_error' is not a kind of finding"):
        DEFAULT_POLICY.overridden({"layer_error": "warning"})


# -- verdicts from issues: every status and severity combination ---------------------------


def issue(kind: str, severity: Severity) -> ValidationIssue:
    return ValidationIssue(severity=severity, type=kind, message=f"{kind} found")


SEVERITY_SETS = [
    frozenset(chosen)
    for size in range(len(Severity) + 1)
    for chosen in itertools.combinations(Severity, size)
]


@pytest.mark.parametrize(
    ("severities", "layer_error", "broke"),
    [
        (severities, layer_error, broke)
        for severities, layer_error, broke in itertools.product(
            SEVERITY_SETS, [False, True], [False, True]
        )
        if layer_error or not broke  # a layer that broke always reports its layer_error
    ],
    ids=lambda value: "+".join(sorted(value)) or "none" if isinstance(value, frozenset) else None,
)
def test_a_layers_verdict_follows_from_its_issues(severities, layer_error, broke):
    issues = [issue("unverified_fact", severity) for severity in severities]
    if layer_error:
        issues.append(issue(IssueType.LAYER_ERROR, Severity.ERROR))
    outcome = LayerOutcome(
        ValidationType.FACTS,
        LayerReading(issues, confidence=0.5),
        None,
        1.0,
        Cause.EXCEPTION if broke else None,
    )
    if Severity.ERROR in severities:
        expected = "fail"
    elif layer_error:
        expected = "error"
    elif Severity.WARNING in severities:
        expected = "warn"
    else:
        expected = "pass"
    assert outcome.verdict == expected


# -- layer outcomes -> valid, through the pipeline with scripted models -------------------

# Each row: the layers' request, the scripted model's tables, the knowledge base, the
# request's severity_policy, the settings' JURIST_VALIDATION_SEVERITY; then each layer's
# verdict and the result's validity.
CASES = {
    "schema holds": (
        {"output": {"answer": "ok"}, "validation_types": ["schema"]},
        {},
        None,
        {},
        {},
        {"schema": "pass"},
        True,
    ),
    "schema violated": (
        {"output": {"answer": 3}, "validation_types": ["schema"]},
        {},
        None,
        {},
        {},
        {"schema": "fail"},
        False,
    ),
    "schema violation as a warning": (
        {"output": {"answer": 3}, "validation_types": ["schema"]},
        {},
        None,
        {"schema_violation": "warning"},
        {},
        {"schema": "warn"},
        True,
    ),
    "schema violation as info": (
        {"output": {"answer": 3}, "validation_types": ["schema"]},
        {},
        None,
        {"schema_violation": "info"},
        {},
        {"schema": "pass"},
        True,
    ),
    "facts verified": (
        {"output": HOLDS, "validation_types": ["facts"]},
        {"claims": [HOLDS], "support": supported(HOLDS)},
        Handbook(SOURCE),
        {},
        {},
        {"facts": "pass"},
        True,
    ),
    "a fact contradicted by a number": (
        {"output": WRONG_NUMBER, "validation_types": ["facts"]},
        {"claims": [WRONG_NUMBER]},
        Handbook(SOURCE),
        {},
        {},
        {"facts": "fail"},
        False,
    ),
    "a fact the model says is contradicted": (
        {"output": DENIED, "validation_types": ["facts"]},
        {"claims": [DENIED], "denied": (DENIED,)},
        Handbook(SOURCE),
        {},
        {},
        {"facts": "fail"},
        False,
    ),
    "a fact not supported": (
        {"output": HOLDS, "validation_types": ["facts"]},
        {"claims": [HOLDS], "support": not_supported(HOLDS)},
        Handbook(SOURCE),
        {},
        {},
        {"facts": "warn"},
        True,
    ),
    "a fact naming what the sources never mention": (
        {"output": UNKNOWN_NAME, "validation_types": ["facts"]},
        {"claims": [UNKNOWN_NAME], "support": not_supported(UNKNOWN_NAME)},
        Handbook(SOURCE),
        {},
        {},
        {"facts": "warn"},
        True,
    ),
    "a fact with nothing found for it": (
        {"output": WRONG_NUMBER, "validation_types": ["facts"]},
        {"claims": [WRONG_NUMBER]},
        Handbook(),
        {},
        {},
        {"facts": "warn"},
        True,
    ),
    "unverified facts as errors, per request": (
        {"output": HOLDS, "validation_types": ["facts"]},
        {"claims": [HOLDS], "support": not_supported(HOLDS)},
        Handbook(SOURCE),
        {"unverified_fact": "error"},
        {},
        {"facts": "fail"},
        False,
    ),
    "contradicted facts as warnings, per request": (
        {"output": WRONG_NUMBER, "validation_types": ["facts"]},
        {"claims": [WRONG_NUMBER]},
        Handbook(SOURCE),
        {"contradicted_fact": "warning"},
        {},
        {"facts": "warn"},
        True,
    ),
    "claims supported": (
        {"output": HOLDS, "validation_types": ["hallucination"], "context": CONTEXT},
        {"claims": [HOLDS], "support": supported(HOLDS)},
        None,
        {},
        {},
        {"hallucination": "pass"},
        True,
    ),
    "a claim unsupported": (
        {"output": HOLDS, "validation_types": ["hallucination"], "context": CONTEXT},
        {"claims": [HOLDS], "support": not_supported(HOLDS)},
        None,
        {},
        {},
        {"hallucination": "warn"},
        True,
    ),
    "a claim contradicted by a number": (
        {"output": WRONG_NUMBER, "validation_types": ["hallucination"], "context": CONTEXT},
        {"claims": [WRONG_NUMBER]},
        None,
        {},
        {},
        {"hallucination": "fail"},
        False,
    ),
    "a claim the model says is contradicted": (
        {"output": DENIED, "validation_types": ["hallucination"], "context": CONTEXT},
        {"claims": [DENIED], "denied": (DENIED,)},
        None,
        {},
        {},
        {"hallucination": "fail"},
        False,
    ),
    "a claim naming what the context never mentions": (
        {"output": UNKNOWN_NAME, "validation_types": ["hallucination"], "context": CONTEXT},
        {"claims": [UNKNOWN_NAME], "support": not_supported(UNKNOWN_NAME)},
        None,
        {},
        {},
        {"hallucination": "warn"},
        True,
    ),
    "unsupported claims as errors, in the settings": (
        {"output": HOLDS, "validation_types": ["hallucination"], "context": CONTEXT},
        {"claims": [HOLDS], "support": not_supported(HOLDS)},
        None,
        {},
        {"unsupported_claim": "error"},
        {"hallucination": "fail"},
        False,
    ),
    "the request's severity beats the settings'": (
        {"output": HOLDS, "validation_types": ["hallucination"], "context": CONTEXT},
        {"claims": [HOLDS], "support": not_supported(HOLDS)},
        None,
        {"unsupported_claim": "info"},
        {"unsupported_claim": "error"},
        {"hallucination": "pass"},
        True,
    ),
    "criterion met": (
        {"output": "x", "validation_types": ["criteria"], "acceptance_criteria": [CRITERION]},
        {"criteria": {CRITERION: 0.9}},
        None,
        {},
        {},
        {"criteria": "pass"},
        True,
    ),
    "criterion not met": (
        {"output": "x", "validation_types": ["criteria"], "acceptance_criteria": [CRITERION]},
        {"criteria": {CRITERION: 0.1}},
        None,
        {},
        {},
        {"criteria": "fail"},
        False,
    ),
    "criterion not met as a warning": (
        {"output": "x", "validation_types": ["criteria"], "acceptance_criteria": [CRITERION]},
        {"criteria": {CRITERION: 0.1}},
        None,
        {"criteria_not_met": "warning"},
        {},
        {"criteria": "warn"},
        True,
    ),
    "quality good": (
        {"output": "x", "validation_types": ["quality"]},
        {"quality": ALL_GOOD},
        None,
        {},
        {},
        {"quality": "pass"},
        True,
    ),
    "quality low": (
        {"output": "x", "validation_types": ["quality"]},
        {"quality": UNCLEAR},
        None,
        {},
        {},
        {"quality": "warn"},
        True,
    ),
    "low clarity as an error": (
        {"output": "x", "validation_types": ["quality"]},
        {"quality": UNCLEAR},
        None,
        {"low_clarity": "error"},
        {},
        {"quality": "fail"},
        False,
    ),
    "a layer that could not run, whatever the policy": (
        {"output": "x", "validation_types": ["criteria"], "acceptance_criteria": [CRITERION]},
        {"fail_with": ModelError(ErrorKind.UNAVAILABLE, "down", retryable=False)},
        None,
        dict.fromkeys(FINDING_KINDS, "info"),
        {},
        {"criteria": "error"},
        False,
    ),
    "a warning beside a pass": (
        {
            "output": {"answer": HOLDS},
            "validation_types": ["schema", "hallucination"],
            "context": CONTEXT,
        },
        {"claims": [HOLDS], "support": not_supported(HOLDS)},
        None,
        {},
        {},
        {"schema": "pass", "hallucination": "warn"},
        True,
    ),
    "a failure beside a warning": (
        {
            "output": {"answer": 3},
            "validation_types": ["schema", "quality"],
        },
        {"quality": UNCLEAR},
        None,
        {},
        {},
        {"schema": "fail", "quality": "warn"},
        False,
    ),
    "a broken layer beside a pass": (
        {
            "output": {"answer": "ok"},
            "validation_types": ["schema", "quality"],
        },
        {"fail_with": ModelError(ErrorKind.TIMEOUT, "slow", retryable=False)},
        None,
        {},
        {},
        {"schema": "pass", "quality": "error"},
        False,
    ),
    "every verdict at once": (
        {
            "output": {"answer": WRONG_NUMBER},
            "validation_types": ["schema", "facts", "criteria", "hallucination"],
            "acceptance_criteria": [CRITERION],
            "context": CONTEXT,
        },
        {"claims": [WRONG_NUMBER], "criteria": {CRITERION: 0.9}},
        Handbook(SOURCE),
        {"contradicted_claim": "warning"},
        {},
        {"schema": "pass", "facts": "fail", "criteria": "pass", "hallucination": "warn"},
        False,
    ),
}


def agrees(result: ValidationResult) -> None:
    """The agreement every result keeps: valid exactly when no issue is an error, which is
    exactly when every layer's verdict is pass or warn."""
    verdicts = {layer.verdict for layer in result.metadata.layers.values()}
    assert result.valid == (result.metadata.error_count == 0)
    assert result.valid == verdicts.issubset({"pass", "warn"})
    for layer in result.metadata.layers.values():
        if layer.status == "error":  # a layer that could not run shows it
            assert layer.verdict == "error"


@pytest.mark.parametrize("case", list(CASES.values()), ids=list(CASES))
async def test_layer_verdicts_and_validity_agree(case):
    body, tables, knowledge, overrides, settings, verdicts, valid = case
    values = {"JURIST_CACHE": "0"}
    if settings:
        values["JURIST_VALIDATION_SEVERITY"] = json.dumps(settings)
    request = {"expected_schema": SCHEMA, **body}
    if overrides:
        request["severity_policy"] = overrides
    validator = Validator(
        scripted_model(PolicyScript(**tables)), settings=Settings(**values), retriever=knowledge
    )
    result = await validator.validate(request)
    got = {layer.value: summary.verdict for layer, summary in result.metadata.layers.items()}
    assert got == verdicts, result.issues
    assert result.valid is valid, result.issues
    agrees(result)


async def test_a_contradicted_fact_is_an_error_that_says_so():
    validator = Validator(
        scripted_model(PolicyScript(claims=[WRONG_NUMBER])),
        settings=Settings(JURIST_CACHE="0"),
        retriever=Handbook(SOURCE),
    )
    result = await validator.validate(
        {
            "output": WRONG_NUMBER,
            "validation_types": ["facts", "hallucination"],
            "context": CONTEXT,
        }
    )
    assert not result.valid
    kinds = {(i.type, i.severity) for i in result.issues}
    assert kinds == {
        (IssueType.CONTRADICTED_FACT, Severity.ERROR),
        (IssueType.CONTRADICTED_CLAIM, Severity.ERROR),
    }
    fact = next(i for i in result.issues if i.type == IssueType.CONTRADICTED_FACT)
    assert fact.message.startswith(f"Contradicted fact: {WRONG_NUMBER}")
    assert "contradict" in fact.message
    assert "trusted sources" in (fact.suggestion or "")
    assert result.metadata.error_count == 2


async def test_a_name_the_sources_never_mention_is_not_called_a_contradiction():
    validator = Validator(
        scripted_model(PolicyScript(claims=[UNKNOWN_NAME])),
        settings=Settings(JURIST_CACHE="0"),
        retriever=Handbook(SOURCE),
    )
    result = await validator.validate({"output": UNKNOWN_NAME, "validation_types": ["facts"]})
    (unverified,) = result.issues
    assert (unverified.type, unverified.severity) == (IssueType.UNVERIFIED_FACT, Severity.WARNING)
    assert "contradict" not in unverified.message
    assert "'Stripe' appears nowhere" in unverified.message


# -- overrides refused, naming the field and the bad value ----------------------------------


@pytest.mark.parametrize(
    ("overrides", "named"),
    [
        ({"unverified_facts": "error"}, "'unverified_facts' is not a kind of finding"),
        ({"unverified_fact": "fatal"}, "'fatal' is not a severity for unverified_fact"),
        ({"layer_error": "info"}, "'layer_error' is not a kind of finding"),
        (["unverified_fact"], "give an object of finding kinds and severities"),
    ],
)
def test_a_bad_override_in_a_request_names_the_field_and_the_value(overrides, named):
    with pytest.raises(ValidationError) as caught:
        ValidationRequest.model_validate(
            {"output": 1, "validation_types": ["quality"], "severity_policy": overrides}
        )
    (error,) = caught.value.errors()
    assert error["loc"] == ("severity_policy",)
    assert named in error["msg"]


@pytest.mark.parametrize(
    ("value", "named"),
    [
        ('{"unverified_facts": "error"}', "unverified_facts"),
        ('{"unverified_fact": "fatal"}', "fatal"),
        ("unverified_fact=error", "not JSON"),
    ],
)
def test_a_bad_override_in_the_settings_names_the_variable_and_the_value(monkeypatch, value, named):
    monkeypatch.setenv("JURIST_VALIDATION_SEVERITY", value)
    with pytest.raises(ConfigError) as caught:
        load_config()
    assert "JURIST_VALIDATION_SEVERITY" in str(caught.value)
    assert named in str(caught.value)


def test_the_settings_override_the_defaults_and_a_request_the_settings():
    settings = Settings(
        JURIST_CACHE="0",
        JURIST_VALIDATION_SEVERITY='{"unverified_fact": "error", "low_clarity": "info"}',
    )
    validator = Validator(scripted_model(ServiceScript()), settings=settings)
    assert validator.policy.of("unverified_fact") is Severity.ERROR
    assert validator.policy.of("low_clarity") is Severity.INFO
    assert validator.policy.of("schema_violation") is Severity.ERROR  # a default kept
    request = ValidationRequest.model_validate(
        {"output": 1, "validation_types": ["quality"], "severity_policy": {"low_clarity": "error"}}
    )
    chosen = validator.policy_for(request)
    assert chosen.of("low_clarity") is Severity.ERROR
    assert chosen.of("unverified_fact") is Severity.ERROR


def test_the_pages_example_runs_as_written(capsys):
    page = Path(__file__).parents[2] / "docs" / "how-to" / "validation-policy.md"
    (code,) = re.findall(r"```python\n(.*?)```", page.read_text(), re.DOTALL)
    exec(compile(code, str(page), "exec"), {})
    promised = [line.removeprefix("# ") for line in code.splitlines() if line.startswith("# ")]
    assert capsys.readouterr().out.splitlines() == promised
