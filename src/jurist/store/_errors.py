"""The store's errors."""

from jurist.core import JuristError


class StoreError(JuristError):
    """The store cannot do what was asked: a bad URL, a missing driver, an unknown schema."""


class IngestError(StoreError):
    """A document that cannot be ingested. `location` is the file, or `file:line` in JSONL."""

    def __init__(self, location: str, problem: str) -> None:
        self.location = location
        self.problem = problem
        super().__init__(f"{location}: {problem}")


class DuplicateRecordError(StoreError):
    """A record's key is taken already: its id, a run's name, or a run's (item, judge)."""
