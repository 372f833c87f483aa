"""Context: everything a judge may look at."""

from collections.abc import Mapping
from dataclasses import field
from datetime import datetime, timedelta
from pathlib import Path
from types import MappingProxyType
from typing import Any

from pydantic import field_validator

from jurist.core._jsonsafe import to_json_text
from jurist.core._record import record
from jurist.core._status import ExecutionStatus


@record
class Context:
    """The task, the output under judgment and what surrounds it. Immutable.

    `output` is any JSON-able value or text; `context` holds source documents or
    retrieved passages (a single string counts as one passage); `workspace` is a
    directory an agent changed.
    """

    goal: str
    output: Any = None
    context: tuple[str, ...] = ()
    reference: Any = None
    workspace: Path | None = None
    status: ExecutionStatus = ExecutionStatus.SUCCESS
    started_at: datetime | None = None
    duration: timedelta | None = None
    metadata: Mapping[str, Any] = field(default_factory=dict)

    @field_validator("context", mode="before")
    @classmethod
    def _one_passage(cls, value: Any) -> Any:
        return (value,) if isinstance(value, str) else value

    @field_validator("metadata", mode="before")
    @classmethod
    def _mapping(cls, value: Any) -> Any:
        if value is None:
            return {}
        if not isinstance(value, Mapping):
            raise ValueError("metadata must be a mapping")
        return value

    def __post_init__(self) -> None:
        object.__setattr__(self, "metadata", MappingProxyType(dict(self.metadata)))

    def output_text(self) -> str:
        """The output as text: strings as they are, None as "", anything else as JSON."""
        if self.output is None:
            return ""
        if isinstance(self.output, str):
            return self.output
        return to_json_text(self.output)
