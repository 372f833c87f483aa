"""Running the members of a jury or cascade: plain judges are judged, juries are voted."""

from typing import Any

from jurist.core import Context, Judge, Judgment, judge_name, run_judge
from jurist.jury._verdict import Verdict


async def cast(member: Judge, ctx: Context) -> tuple[Judgment, Verdict | None]:
    """The member's judgment, and its Verdict if it votes (a nested Jury or Cascade).

    Like run_judge, never raises (but for cancellation): a vote that breaks is an ERROR
    judgment with no verdict.
    """
    vote: Any = getattr(member, "vote", None)
    if not callable(vote):
        return await run_judge(member, ctx), None
    name = judge_name(member)
    try:
        verdict = await vote(ctx)
    except Exception as exc:  # noqa: BLE001 - a broken member is an ERROR ballot, not a crash
        reason = f"vote of {name!r} raised {type(exc).__name__}: {exc}"
        return Judgment.error(reason, exc, metadata={"judge": name}), None
    if not isinstance(verdict, Verdict):
        reason = f"vote of {name!r} returned a {type(verdict).__name__}, not a Verdict"
        return Judgment.error(reason, metadata={"judge": name}), None
    return verdict.aggregated, verdict


def single(name: str, judgment: Judgment) -> Verdict:
    """A one-judge verdict: the judgment is its own aggregate."""
    return Verdict(judgment, (judgment,), {name: judgment}, {name: 1.0})
