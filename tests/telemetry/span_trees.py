"""Reading the spans a test made back as a tree."""

from collections.abc import Sequence

from opentelemetry.sdk.trace import ReadableSpan


def children(spans: Sequence[ReadableSpan], parent: ReadableSpan) -> list[ReadableSpan]:
    """The spans whose parent is `parent`, by name."""
    assert parent.context is not None
    found = [
        span
        for span in spans
        if span.parent is not None and span.parent.span_id == parent.context.span_id
    ]
    return sorted(found, key=lambda span: span.name)


def only(spans: Sequence[ReadableSpan], name: str) -> ReadableSpan:
    named = [span for span in spans if span.name == name]
    assert len(named) == 1, f"{len(named)} spans named {name!r} in {[s.name for s in spans]}"
    return named[0]


def ancestors(spans: Sequence[ReadableSpan], span: ReadableSpan) -> list[ReadableSpan]:
    """The span's parent, its parent's parent, and so on up to the root."""
    by_id = {found.context.span_id: found for found in spans if found.context is not None}
    found = []
    while span.parent is not None:
        span = by_id[span.parent.span_id]
        found.append(span)
    return found
