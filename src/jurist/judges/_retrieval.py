"""What a fact-checking judge needs from a knowledge base, without depending on one.

The judges sit below the knowledge base, so they name the contract here and
`jurist.knowledge` fulfils it; any other retriever (a vector database, a search API) can too.
"""

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable

from jurist.core import JuristError


@dataclass(frozen=True)
class Passage:
    """A retrieved piece of a trusted document.

    `collection` and `document` say where it came from; `score` is the retriever's own
    relevance figure (higher is better, comparable only within one search).
    """

    text: str
    collection: str
    document: str
    score: float = 0.0
    chunk: int = 0
    metadata: dict[str, Any] = field(default_factory=dict)


class UnknownSource(JuristError, LookupError):
    """A trusted source named in a request that the knowledge base does not hold."""

    def __init__(self, source: str, known: Sequence[str] = ()) -> None:
        self.source = source
        self.known = tuple(known)
        hint = f" (known collections: {', '.join(self.known)})" if self.known else ""
        super().__init__(f"unknown trusted source {source!r}: no collection or document{hint}")


@runtime_checkable
class Retriever(Protocol):
    """Finds passages for a query within named trusted sources.

    `sources` are collection names or document ids; an empty sequence means every
    collection. A name the retriever does not hold raises `UnknownSource`.
    """

    async def retrieve(self, query: str, sources: Sequence[str], limit: int) -> list[Passage]: ...

    async def check_sources(self, sources: Sequence[str]) -> None: ...
