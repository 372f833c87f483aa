"""The severity policy: the one table that says how serious each kind of finding is, and so
what makes an output invalid.

A finding's kind is its issue `type`. The layers say what they found (a claim the trusted
sources contradict, a claim they do not verify, a schema violation, ...); the policy gives
each kind its severity; an output is valid when no issue is an error. The defaults are
`SeverityPolicy()`; the settings' JURIST_VALIDATION_SEVERITY overrides them, and a request's
`severity_policy` overrides both, kind by kind.

A layer that could not do its work (`layer_error`) is not a finding and is not in the
table: it is always an error, since a layer that did not run must never pass in silence.

Each layer's `verdict` follows from the severities of its issues, so a layer and the result
never disagree: `fail` (an error-severity finding), `error` (the layer could not complete),
`warn` (warnings only), `pass` (nothing, or notes of severity info). The output is valid
exactly when every layer's verdict is `pass` or `warn`.
"""

from collections.abc import Mapping
from enum import StrEnum
from typing import Any, get_args

from pydantic import BaseModel, ConfigDict, Field

from jurist.settings import ValidationFinding


class Severity(StrEnum):
    ERROR = "error"  # valid = false
    WARNING = "warning"  # worth a look; valid unless there is an error too
    INFO = "info"  # a suggestion


class IssueType(StrEnum):
    """An issue's type: the kind of finding, or a layer that could not complete."""

    SCHEMA_VIOLATION = "schema_violation"
    CONTRADICTED_FACT = "contradicted_fact"
    UNVERIFIED_FACT = "unverified_fact"
    CONTRADICTED_CLAIM = "contradicted_claim"
    UNSUPPORTED_CLAIM = "unsupported_claim"
    CRITERIA_NOT_MET = "criteria_not_met"
    LOW_COMPLETENESS = "low_completeness"
    LOW_CLARITY = "low_clarity"
    LOW_CONSISTENCY = "low_consistency"
    LOW_QUALITY = "low_quality"  # a criterion of a custom quality rubric
    LAYER_ERROR = "layer_error"  # a layer broke: never a silent pass


# The kinds of finding, as the settings name them (the settings sit below this package).
FINDING_KINDS: tuple[str, ...] = get_args(ValidationFinding)
_SEVERITIES = ", ".join(repr(s.value) for s in Severity)


class SeverityPolicy(BaseModel):
    """The severity of each kind of finding. The defaults are what a demanding reader
    expects: what is shown to be wrong (contradicted, against the schema, a criterion not
    met) is an error; what could not be confirmed, and low quality, is a warning."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    schema_violation: Severity = Field(
        Severity.ERROR, description="the output breaks the expected JSON Schema (schema layer)"
    )
    contradicted_fact: Severity = Field(
        Severity.ERROR,
        description="a claim the trusted sources contradict (facts layer)",
    )
    unverified_fact: Severity = Field(
        Severity.WARNING,
        description="a claim the trusted sources do not verify: nothing found, or not enough "
        "evidence (facts layer)",
    )
    contradicted_claim: Severity = Field(
        Severity.ERROR,
        description="a claim the request's context contradicts (hallucination layer)",
    )
    unsupported_claim: Severity = Field(
        Severity.WARNING,
        description="a claim the request's context does not support (hallucination layer)",
    )
    criteria_not_met: Severity = Field(
        Severity.ERROR, description="an acceptance criterion not met (criteria layer)"
    )
    low_completeness: Severity = Field(
        Severity.WARNING, description="completeness below the minimum score (quality layer)"
    )
    low_clarity: Severity = Field(
        Severity.WARNING, description="clarity below the minimum score (quality layer)"
    )
    low_consistency: Severity = Field(
        Severity.WARNING, description="consistency below the minimum score (quality layer)"
    )
    low_quality: Severity = Field(
        Severity.WARNING,
        description="another criterion of the quality rubric below the minimum score "
        "(quality layer)",
    )

    def of(self, kind: str) -> Severity:
        """The severity of an issue of this type; a layer error is always an error."""
        if kind == IssueType.LAYER_ERROR:
            return Severity.ERROR
        severity: Severity = getattr(self, kind)
        return severity

    def overridden(self, overrides: Mapping[Any, object]) -> "SeverityPolicy":
        """This policy with some kinds' severities replaced, each checked."""
        if not overrides:
            return self
        return SeverityPolicy.model_validate({**self.model_dump(), **check_overrides(overrides)})


DEFAULT_POLICY = SeverityPolicy()


def check_overrides(value: Any) -> dict[str, Severity]:
    """Overrides as a request or the settings give them ({"unverified_fact": "error"}), or
    a ValueError naming the kind or the severity at fault and what is allowed."""
    if not isinstance(value, Mapping):
        raise ValueError(
            'give an object of finding kinds and severities, e.g. {"unverified_fact": "error"}'
        )
    checked: dict[str, Severity] = {}
    for kind, severity in value.items():
        if kind not in FINDING_KINDS:
            raise ValueError(
                f"{kind!r} is not a kind of finding; the kinds are {', '.join(FINDING_KINDS)}"
            )
        if severity not in tuple(Severity):
            raise ValueError(f"{severity!r} is not a severity for {kind}; use {_SEVERITIES}")
        checked[kind] = Severity(severity)
    return checked
