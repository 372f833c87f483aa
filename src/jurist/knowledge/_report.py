"""What the knowledge base reports back: an ingest's outcome, a collection's size."""

from dataclasses import dataclass

from jurist.core import counted
from jurist.knowledge._ingest import Skipped


@dataclass(frozen=True)
class IngestReport:
    """The outcome of one `add`: document ids by what happened to them, and the number of
    chunks written (new or replaced)."""

    collection: str
    added: tuple[str, ...] = ()
    updated: tuple[str, ...] = ()
    unchanged: tuple[str, ...] = ()
    skipped: tuple[Skipped, ...] = ()
    chunks: int = 0

    def summary(self) -> str:
        return (
            f"{self.collection}: {len(self.added)} added, {len(self.updated)} updated, "
            f"{len(self.unchanged)} unchanged, {len(self.skipped)} skipped, "
            f"{counted(self.chunks, 'chunk')} written"
        )


@dataclass(frozen=True)
class CollectionInfo:
    name: str
    documents: int
    chunks: int
    description: str | None = None
