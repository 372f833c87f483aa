"""The session's judgments summed up for the terminal: statuses, usage, the slowest."""

from collections import Counter

from jurist.core import Status, Usage, counted
from jurist.pytest_plugin._log import JudgmentLog

SLOWEST = 5


def summary_lines(log: JudgmentLog, slowest: int = SLOWEST) -> list[str]:
    """Nothing when the session judged nothing."""
    if not log.calls:
        return []
    counts = Counter(call.judgment.status for call in log.calls)
    tests = {call.test for call in log.calls if call.test is not None}
    statuses = ", ".join(f"{counts[s]} {s.value}" for s in Status if counts[s])
    lines = [
        f"{counted(len(log.calls), 'judgment')} in {counted(len(tests), 'test')}: {statuses}",
        _usage(Usage.total(call.judgment.usage for call in log.calls)),
    ]
    if slowest > 0:
        lines.append("slowest judgments:")
        ranked = sorted(log.calls, key=lambda call: call.seconds, reverse=True)[:slowest]
        for call in ranked:
            where = call.test or "(outside any test)"
            lines.append(
                f"  {call.seconds:8.3f}s  {call.judgment.status.value:<7} {call.judge:<12} {where}"
            )
    return lines


def _usage(usage: Usage | None) -> str:
    if usage is None:
        return "usage: none reported"
    cost = "unknown" if usage.cost_usd is None else f"${usage.cost_usd:.4f}"
    cached = f" ({usage.cached_calls} from the cache)" if usage.cached_calls else ""
    return (
        f"usage: {counted(usage.calls, 'model call')}{cached}, "
        f"{usage.input_tokens:,} input + {usage.output_tokens:,} output tokens, cost {cost}"
    )
