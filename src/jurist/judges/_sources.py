"""SourceCountJudge: does the output cite enough distinct sources?"""

import re

from jurist.core import BaseJudge, Check, Context, Count, Judgment, Name, NumericScore, Report
from jurist.judges._common import listing

#: URLs (http or https) and numbered citations such as [3].
SOURCE_PATTERN = r"https?://[^\s<>()\[\]\"']+|\[\d+\]"
_TRAILING = ".,;:!?"
# The sources a report lists at most; `count` counts them all.
LISTED_SOURCES = 20


class SourcesReport(Report, kind="sources"):
    """The distinct sources an output cites: how many (`count`), how many it needed, and
    the first of them in order of appearance."""

    count: int
    min_sources: int
    sources: tuple[str, ...]


class SourceCountJudge(BaseJudge):
    """PASS when the output text cites at least `min_sources` distinct sources.

    A source is a match of `pattern` (by default a URL or a numbered citation like "[2]");
    repeats of the same match count once, and a URL's trailing punctuation is ignored. The
    score is the fraction of the required count found, capped at 1, so a near miss scores
    higher than no source at all.
    """

    def __init__(
        self,
        min_sources: Count = 1,
        pattern: str | re.Pattern[str] = SOURCE_PATTERN,
        *,
        name: Name | None = None,
        description: str = "",
    ) -> None:
        super().__init__(name, description)
        if isinstance(min_sources, bool) or not isinstance(min_sources, int):
            raise TypeError(f"min_sources must be an int, not {type(min_sources).__name__}")
        if min_sources < 1:
            raise ValueError(f"min_sources must be >= 1, not {min_sources}")
        if isinstance(pattern, str):
            try:
                pattern = re.compile(pattern)
            except re.error as exc:
                raise ValueError(f"pattern {pattern!r} is not a valid regex: {exc}") from exc
        elif not isinstance(pattern, re.Pattern) or not isinstance(pattern.pattern, str):
            raise TypeError("pattern must be a str or a compiled str pattern")
        self.min_sources = min_sources
        self.pattern: re.Pattern[str] = pattern

    async def judge(self, ctx: Context) -> Judgment:
        sources: list[str] = []
        for match in self.pattern.finditer(ctx.output_text()):
            source = match.group(0).rstrip(_TRAILING)
            if source and source not in sources:
                sources.append(source)
        count = len(sources)
        passed = count >= self.min_sources
        message = f"{count} distinct sources, at least {self.min_sources}"
        if sources:
            message += f": {listing(sources, limit=3)}"
        score = NumericScore(min(count, self.min_sources) / self.min_sources)
        factory = Judgment.ok if passed else Judgment.fail
        return factory(
            message,
            score=score,
            checks=[Check("min_sources", passed, message)],
            metadata=SourcesReport(
                count=count,
                min_sources=self.min_sources,
                sources=tuple(sources[:LISTED_SOURCES]),
            ).to_metadata(),
        )
