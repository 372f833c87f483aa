"""Why a judgment is ERROR or a call failed: one closed set of causes, kept in
`metadata["cause"]` and in whatever else records a failure (an autonomy role's, a runner
row's)."""

from enum import StrEnum


class Cause(StrEnum):
    """Why a judge could not decide, or a call could not answer. The values are what stored
    judgments and records hold; the model layer's error kinds keep their own values."""

    # The model layer's failures (its ErrorKind values).
    TIMEOUT = "timeout"
    RATE_LIMITED = "rate_limited"
    SERVER_ERROR = "server_error"
    CONNECTION = "connection"
    CLIENT_ERROR = "client_error"
    REFUSED = "refused"
    MODEL_UNAVAILABLE = "unavailable"
    BUDGET = "budget"
    # Any of the model layer's failures other than the budget and an unreadable answer,
    # where the caller reacts to them alike (an autonomy role gives up on each the same way).
    MODEL_ERROR = "model_error"
    # The answer came but could not be read.
    UNPARSEABLE = "unparseable"
    # The answer was read but breaks a constraint of the request (a rewrite too long).
    CONSTRAINT = "constraint_violation"
    # The judge's own side: a template that did not render, an input it cannot judge.
    PROMPT = "prompt"
    BAD_INPUT = "bad_input"
    UNKNOWN_SOURCE = "unknown_source"
    # Why a step around a judge could not use it: its model could not be built, the judge
    # raised instead of returning an ERROR, abstained where a verdict was needed, or
    # returned a judgment whose report could not be read.
    BAD_MODEL = "bad_model"
    EXCEPTION = "exception"
    ABSTAINED = "abstained"
    UNREADABLE = "unreadable"
    # Several parts failed for different causes.
    MIXED = "mixed"
    # Anything else that broke.
    ERROR = "error"

    @classmethod
    def of(cls, value: object) -> "Cause | None":
        """The cause a stored value names, None when it names none."""
        try:
            return cls(str(value)) if value is not None else None
        except ValueError:
            return None
