"""The store's errors."""

from jurist.core import JuristError


class StoreError(JuristError):
    """The store cannot do what was asked: a bad URL, a missing driver, an unknown schema."""


class DuplicateRecordError(StoreError):
    """A record's key is taken already: its id, a run's name, or a run's (item, judge)."""
