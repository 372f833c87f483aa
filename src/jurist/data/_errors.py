"""The one error of every dataset reader."""

from jurist.core import JuristError


class DatasetError(JuristError, ValueError):
    """A dataset, or one of its rows, that cannot be read.

    `source` is the file (or `rows` for rows in memory), `line` the row's line when one row is
    at fault, `field` the field inside it when known; the message is
    `source:line: field: problem`, leaving out what is not known. `location` is
    `source:line` (or `source`)."""

    def __init__(
        self, source: str, problem: str, *, line: int | None = None, field: str | None = None
    ) -> None:
        self.source = source
        self.problem = problem
        self.line = line
        self.field = field or None
        self.location = source if line is None else f"{source}:{line}"
        where = self.location if self.field is None else f"{self.location}: {self.field}"
        super().__init__(f"{where}: {problem}")
