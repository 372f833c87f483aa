"""Typed reports: the structure a judge states beside its verdict (criteria, claims, ...).

A report is written into the judgment's metadata, flat, with `metadata["report"]` naming its
kind, so stored and served judgments keep one JSON shape; readers never pick string keys out
of metadata by hand but ask `CriteriaReport.of(judgment)` (or `Report.of(judgment)` for
whichever kind it holds) and get a validated object or None.
"""

from collections.abc import Mapping
from typing import Any, ClassVar, Self

from pydantic import BaseModel, ConfigDict, ValidationError

from jurist.core._errors import JuristError
from jurist.core._judgment import Judgment

REPORT_KEY = "report"


class ReportError(JuristError, ValueError):
    """A judgment names a report kind but its metadata does not hold that report."""


class Report(BaseModel):
    """Base of every typed report. Subclasses name their kind once:
    `class CriteriaReport(Report, kind="criteria")`."""

    model_config = ConfigDict(extra="ignore", frozen=True)

    kind: ClassVar[str] = ""
    _kinds: ClassVar[dict[str, type["Report"]]] = {}

    def __init_subclass__(cls, *, kind: str = "", **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if kind:
            if kind in Report._kinds and Report._kinds[kind].__qualname__ != cls.__qualname__:
                raise TypeError(f"report kind {kind!r} is taken by {Report._kinds[kind]!r}")
            cls.kind = kind
            Report._kinds[kind] = cls

    @classmethod
    def of(cls, judgment: Judgment) -> Self | None:
        """The report the judgment holds when it is of this kind or of a kind derived from
        it (any kind, called on `Report` itself); None when it holds none or another kind. A
        judgment that names a kind but whose metadata does not validate raises
        ReportError."""
        named = judgment.metadata.get(REPORT_KEY)
        target = Report._kinds.get(named) if isinstance(named, str) else None
        if target is None or not issubclass(target, cls):
            return None
        try:
            report = target.model_validate(thawed(judgment.metadata))
        except ValidationError as exc:
            raise ReportError(f"the judgment's {named} report is malformed: {exc}") from exc
        assert isinstance(report, cls)
        return report

    @classmethod
    def kinds(cls) -> Mapping[str, type["Report"]]:
        """Every report kind known to this process, by name."""
        return dict(Report._kinds)

    def to_metadata(self) -> dict[str, Any]:
        """The metadata entries that hold this report (merged into a judgment's metadata)."""
        return {REPORT_KEY: self.kind, **self.model_dump(mode="json")}


def thawed(value: Any) -> Any:
    """A judgment's frozen metadata (read-only mappings, tuples) as plain dicts and lists,
    the shapes pydantic validates."""
    if isinstance(value, Mapping):
        return {k: thawed(v) for k, v in value.items()}
    if isinstance(value, tuple | list):
        return [thawed(v) for v in value]
    return value
