"""The votes behind a jury's or a cascade's verdict, kept beside the verdict in a run.

A run stores each member's judgment under `JUDGE/MEMBER` (the run's judge, a slash, the
member's name as the verdict names it: `tier/member` in a cascade), in the same transaction
as the verdict, so a resumed run has every vote of every item it skips.
"""

from collections.abc import Iterable, Mapping
from typing import Any

from jurist.core import Context, Judge, Judgment, judge_name, run_judge
from jurist.jury import Verdict


async def judge_with_votes(judge: Judge, ctx: Context) -> tuple[Judgment, dict[str, Judgment]]:
    """The judge's judgment and, when it votes (a Jury, a Cascade), its members' judgments
    by name. Like run_judge, never raises (but for cancellation): a vote that breaks is an
    ERROR judgment with no votes."""
    vote: Any = getattr(judge, "vote", None)
    if not callable(vote):
        return await run_judge(judge, ctx), {}
    name = judge_name(judge)
    try:
        verdict = await vote(ctx)
    except Exception as exc:  # noqa: BLE001 - a broken jury is an ERROR item, not a crash
        reason = f"judge {name!r} raised {type(exc).__name__}: {exc}"
        return Judgment.error(reason, exc, metadata={"judge": name}), {}
    if not isinstance(verdict, Verdict):
        reason = f"judge {name!r} voted a {type(verdict).__name__}, not a Verdict"
        return Judgment.error(reason, metadata={"judge": name}), {}
    return verdict.aggregated, dict(verdict.by_name)


# The judgments table keeps a judge's name in 200 characters: a vote whose stored name
# would be longer stays in the result of the session that judged it, and is not stored.
MAX_LABEL = 200


def vote_label(judge: str, member: str) -> str:
    """The name a member's judgment is stored under."""
    return f"{judge}/{member}"


def votes_by_item(
    judge: str, stored: Iterable[tuple[str | None, str, Judgment]]
) -> dict[str, dict[str, Judgment]]:
    """Item -> member -> judgment, from (item id, stored judge, judgment) triples; what the
    run's judge stored itself, and what other judges stored, is left out."""
    prefix = vote_label(judge, "")
    votes: dict[str, dict[str, Judgment]] = {}
    for item_id, label, judgment in stored:
        if item_id is not None and label.startswith(prefix) and len(label) > len(prefix):
            votes.setdefault(item_id, {})[label[len(prefix) :]] = judgment
    return votes


def members(votes: Mapping[str, Mapping[str, Judgment]]) -> list[str]:
    """Every member that voted on some item, in the order they first appear."""
    return list(dict.fromkeys(name for by_member in votes.values() for name in by_member))
