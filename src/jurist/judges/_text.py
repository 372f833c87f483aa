"""Judges of the output's text: patterns, keywords and length."""

import re
from collections.abc import Iterable
from typing import Literal

from jurist.core import BaseJudge, Check, Context, Judgment, Name, NonNegative, NumericScore
from jurist.judges._common import decided, listing, shorten

_QUOTE_LIMIT = 80


class RegexJudge(BaseJudge):
    """PASS when a pattern occurs in the output text (or, with must_match=False, when not).

    The pattern is searched for anywhere (`re.search`); anchor it to demand a full match.
    """

    def __init__(
        self,
        pattern: str | re.Pattern[str],
        must_match: bool = True,
        flags: int = 0,
        *,
        name: Name | None = None,
        description: str = "",
    ) -> None:
        super().__init__(name, description)
        if isinstance(pattern, re.Pattern):
            if not isinstance(pattern.pattern, str):
                raise TypeError("pattern must be a str pattern, not a bytes pattern")
            if flags:
                raise ValueError("flags cannot be given with an already compiled pattern")
            compiled = pattern
        elif isinstance(pattern, str):
            try:
                compiled = re.compile(pattern, flags)
            except re.error as exc:
                raise ValueError(f"pattern {pattern!r} is not a valid regex: {exc}") from exc
        else:
            raise TypeError(f"pattern must be a str or re.Pattern, not {type(pattern).__name__}")
        self.pattern: re.Pattern[str] = compiled
        self.must_match = must_match

    async def judge(self, ctx: Context) -> Judgment:
        text = ctx.output_text()
        found = self.pattern.search(text)
        shown = f"/{shorten(self.pattern.pattern, _QUOTE_LIMIT)}/"
        metadata: dict[str, object] = {"pattern": self.pattern.pattern}
        if found is None:
            message = f"no match for {shown}"
            passed = not self.must_match
        else:
            quote = shorten(found.group(0), _QUOTE_LIMIT)
            where = f"at {found.start()}"
            if self.must_match:
                message = f"matched {quote!r} {where}"
            else:
                message = f"forbidden pattern {shown} matched {quote!r} {where}"
            passed = self.must_match
            metadata.update(match=quote, span=list(found.span()))
        check = Check("match" if self.must_match else "no_match", passed, message)
        return decided(passed, message, [check], metadata)


class ContainsJudge(BaseJudge):
    """Keywords the output text must contain: all of them, or at least one (mode="any").

    Matching is by substring, case-insensitive unless case_sensitive=True. The score is
    the fraction of keywords found.
    """

    def __init__(
        self,
        keywords: str | Iterable[str],
        mode: Literal["all", "any"] = "all",
        case_sensitive: bool = False,
        *,
        name: Name | None = None,
        description: str = "",
    ) -> None:
        super().__init__(name, description)
        self.keywords: tuple[str, ...] = _keywords(keywords)
        if mode not in ("all", "any"):
            raise ValueError(f"mode must be 'all' or 'any', not {mode!r}")
        self.mode: Literal["all", "any"] = "all" if mode == "all" else "any"
        self.case_sensitive = case_sensitive

    async def judge(self, ctx: Context) -> Judgment:
        text = ctx.output_text()
        if not self.case_sensitive:
            text = text.casefold()
        found: list[str] = []
        missing: list[str] = []
        for keyword in self.keywords:
            needle = keyword if self.case_sensitive else keyword.casefold()
            (found if needle in text else missing).append(keyword)
        checks = [Check(k, k in found, "found" if k in found else "missing") for k in self.keywords]
        score = NumericScore(len(found) / len(self.keywords))
        metadata = {"mode": self.mode, "found": found, "missing": missing}
        total = len(self.keywords)
        if self.mode == "all":
            if missing:
                reason = f"missing {len(missing)} of {total} keywords: {listing(missing)}"
                return Judgment.fail(reason, score=score, checks=checks, metadata=metadata)
            reason = f"all {total} keywords found" if total > 1 else f"found {listing(found)}"
            return Judgment.ok(reason, score=score, checks=checks, metadata=metadata)
        if found:
            return Judgment.ok(
                f"found {listing(found)}", score=score, checks=checks, metadata=metadata
            )
        return Judgment.fail(
            f"none of the keywords found: {listing(missing)}",
            score=score,
            checks=checks,
            metadata=metadata,
        )


def _keywords(keywords: str | Iterable[str]) -> tuple[str, ...]:
    if isinstance(keywords, str):
        keywords = (keywords,)
    elif not isinstance(keywords, Iterable):
        raise TypeError(
            f"keywords must be a str or a sequence of str, not {type(keywords).__name__}"
        )
    result: list[str] = []
    for index, keyword in enumerate(keywords):
        if not isinstance(keyword, str):
            raise TypeError(f"keywords[{index}] is a {type(keyword).__name__}, not a str")
        if not keyword:
            raise ValueError(f"keywords[{index}] is empty; every keyword needs some text")
        if keyword not in result:
            result.append(keyword)
    if not result:
        raise ValueError("keywords must name at least one keyword")
    return tuple(result)


class LengthJudge(BaseJudge):
    """Bounds on the output text's length in characters and in words.

    Words are the whitespace-separated tokens of the text. Every bound is inclusive.
    """

    def __init__(
        self,
        *,
        min_chars: NonNegative | None = None,
        max_chars: NonNegative | None = None,
        min_words: NonNegative | None = None,
        max_words: NonNegative | None = None,
        name: Name | None = None,
        description: str = "",
    ) -> None:
        super().__init__(name, description)
        bounds = {
            "min_chars": min_chars,
            "max_chars": max_chars,
            "min_words": min_words,
            "max_words": max_words,
        }
        for param, value in bounds.items():
            if value is None:
                continue
            if isinstance(value, bool) or not isinstance(value, int):
                raise TypeError(f"{param} must be an int or None, not {type(value).__name__}")
            if value < 0:
                raise ValueError(f"{param} must be >= 0, not {value}")
        if all(value is None for value in bounds.values()):
            raise ValueError(
                "LengthJudge needs at least one of min_chars, max_chars, min_words, max_words"
            )
        for unit in ("chars", "words"):
            low, high = bounds[f"min_{unit}"], bounds[f"max_{unit}"]
            if low is not None and high is not None and low > high:
                raise ValueError(f"min_{unit} ({low}) must not exceed max_{unit} ({high})")
        self.min_chars = min_chars
        self.max_chars = max_chars
        self.min_words = min_words
        self.max_words = max_words

    async def judge(self, ctx: Context) -> Judgment:
        text = ctx.output_text()
        counts = {"chars": len(text), "words": len(text.split())}
        checks: list[Check] = []
        for param, limit in (
            ("min_chars", self.min_chars),
            ("max_chars", self.max_chars),
            ("min_words", self.min_words),
            ("max_words", self.max_words),
        ):
            if limit is None:
                continue
            unit = param[4:]
            actual = counts[unit]
            if param.startswith("min"):
                checks.append(Check(param, actual >= limit, f"{actual} {unit}, at least {limit}"))
            else:
                checks.append(Check(param, actual <= limit, f"{actual} {unit}, at most {limit}"))
        failed = [check for check in checks if not check.passed]
        metadata = dict(counts)
        if failed:
            reason = "; ".join(f"{c.name}: {c.message}" for c in failed)
            return decided(False, reason, checks, metadata)
        return decided(
            True,
            f"{counts['chars']} chars and {counts['words']} words, within bounds",
            checks,
            metadata,
        )
