"""The small enums of the vocabulary. Their values are wire names: stable, lower case."""

from enum import StrEnum


class Status(StrEnum):
    """The outcome of one judgment.

    ABSTAIN means the judge cannot tell; it is never a failing vote. ERROR means the judge
    broke (model down, unreadable answer); it is never a negative finding.
    """

    PASS = "pass"
    FAIL = "fail"
    ABSTAIN = "abstain"
    ERROR = "error"


class ExecutionStatus(StrEnum):
    """How the run that produced the output under judgment ended."""

    SUCCESS = "success"
    FAILED = "failed"
    TIMEOUT = "timeout"
    CANCELLED = "cancelled"
    REFUSED = "refused"
    UNKNOWN = "unknown"


class JudgeKind(StrEnum):
    """What a judge relies on, so callers can order cheap judges before costly ones."""

    DETERMINISTIC = "deterministic"
    MODEL = "model"
    HYBRID = "hybrid"
    AGENT = "agent"
