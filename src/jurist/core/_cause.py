"""Why a judgment is ERROR: one closed set of causes, kept in `metadata["cause"]`."""

from enum import StrEnum


class Cause(StrEnum):
    """Why a judge could not decide. The values are what stored judgments hold in
    `metadata["cause"]`; the model layer's error kinds keep their own values."""

    # The model layer's failures (its ErrorKind values).
    TIMEOUT = "timeout"
    RATE_LIMITED = "rate_limited"
    SERVER_ERROR = "server_error"
    CONNECTION = "connection"
    CLIENT_ERROR = "client_error"
    REFUSED = "refused"
    MODEL_UNAVAILABLE = "unavailable"
    BUDGET = "budget"
    # The answer came but could not be read.
    UNPARSEABLE = "unparseable"
    # The judge's own side: a template that did not render, an input it cannot judge.
    PROMPT = "prompt"
    BAD_INPUT = "bad_input"
    UNKNOWN_SOURCE = "unknown_source"
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
