"""What every bridge shares: the finish of a call as an ExecutionStatus, the judge a caller
names, and running a framework's call then judging its result."""

import inspect
import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from datetime import UTC, datetime, timedelta
from time import perf_counter
from typing import Any, TypeAlias

from jurist.core import Cause, Context, ExecutionStatus, Judgment, run_judge
from jurist.llm import Model
from jurist.specs import JudgeOrSpec, as_judge

# A zero-argument call returning the framework's result, directly or as an awaitable.
Call: TypeAlias = Callable[[], Any]

# The metadata key, shared by every bridge, that tells a judge the output was cut short by
# a token limit: the answer may be incomplete through no fault of its own.
TRUNCATED = "truncated"
# The metadata key of a call that raised: its exception's type and message.
CALL_ERROR = "call_error"


@dataclass(frozen=True)
class Finish:
    """How a framework's call ended, as jurist reads it."""

    status: ExecutionStatus
    truncated: bool = False


DONE = Finish(ExecutionStatus.SUCCESS)
CUT_SHORT = Finish(ExecutionStatus.SUCCESS, truncated=True)
REFUSED = Finish(ExecutionStatus.REFUSED)
FAILED = Finish(ExecutionStatus.FAILED)
CANCELLED = Finish(ExecutionStatus.CANCELLED)
UNKNOWN = Finish(ExecutionStatus.UNKNOWN)


def finish_of(table: Mapping[str, Finish], reason: object) -> Finish:
    """The finish a reason names in `table` (compared lower-case); UNKNOWN for a reason
    that is missing or that the table does not hold."""
    if not isinstance(reason, str):
        return UNKNOWN
    return table.get(reason.lower(), UNKNOWN)


def usage_of(input_tokens: object, output_tokens: object, total: object = None) -> dict[str, int]:
    """Token counts under the keys every bridge uses; counts a result does not give are
    left out, and the total is the sum when the result gives none."""
    usage = {
        key: value
        for key, value in (("input_tokens", input_tokens), ("output_tokens", output_tokens))
        if isinstance(value, int)
    }
    if isinstance(total, int):
        usage["total_tokens"] = total
    elif len(usage) == 2:
        usage["total_tokens"] = usage["input_tokens"] + usage["output_tokens"]
    return usage


def arguments_of(raw: object) -> object:
    """A tool call's arguments: JSON text read into its value, anything else kept as is
    (text that is not JSON stays text, so nothing the model sent is lost)."""
    if isinstance(raw, str):
        try:
            return json.loads(raw)
        except ValueError:
            return raw
    return raw


def build_context(
    goal: str,
    output: Any,
    finish: Finish,
    found: Mapping[str, Any],
    extra: Mapping[str, Any],
    *,
    sources: tuple[str, ...] = (),
    reference: Any = None,
) -> Context:
    """The Context of one result: what the bridge found, the caller's metadata over it."""
    if not isinstance(goal, str):
        raise TypeError(f"goal must be a string, not {type(goal).__name__}")
    metadata = {key: value for key, value in found.items() if value is not None}
    if finish.truncated:
        metadata[TRUNCATED] = True
    return Context(
        goal,
        output=output,
        context=sources,
        reference=reference,
        status=finish.status,
        metadata={**metadata, **extra},
    )


@dataclass(frozen=True)
class Bridge:
    """One framework's side of `evaluate`: how its result becomes a Context, and which of
    its exceptions are timeouts."""

    name: str
    to_context: Callable[..., Context]
    timeouts: tuple[type[BaseException], ...] = ()


async def evaluate_call(
    bridge: Bridge,
    goal: str,
    call: Call,
    judge: JudgeOrSpec,
    *,
    model: Model | str | None,
    metadata: Mapping[str, Any],
) -> Judgment:
    """Run `call`, turn its result into a Context and judge it.

    A call that raises is never judged: there is no output to look at, and a verdict on
    nothing would read as a finding about the answer. It is reported as an ERROR judgment
    whose metadata holds the execution status (`failed`, or `timeout` for a timeout), the
    exception and the caller's metadata. Cancellation propagates.
    """
    chosen = as_judge(judge, model=model)
    if not callable(call):
        raise TypeError(f"call must be a zero-argument callable, not {type(call).__name__}")
    started = datetime.now(UTC)
    clock = perf_counter()
    try:
        result = call()
        if inspect.isawaitable(result):
            result = await result
    except Exception as exc:  # noqa: BLE001 - a failing call is reported, never raised
        return _failed_call(
            bridge, goal, exc, started=started, elapsed=perf_counter() - clock, metadata=metadata
        )
    elapsed = perf_counter() - clock
    ctx = bridge.to_context(result, goal, **metadata)
    ctx = replace(ctx, started_at=started, duration=timedelta(seconds=elapsed))
    return await run_judge(chosen, ctx)


def failed_context(
    bridge: Bridge, goal: str, exc: Exception, metadata: Mapping[str, Any]
) -> Context:
    """The Context of a call that raised: no output, FAILED (TIMEOUT for a timeout), and
    the exception under `call_error`."""
    timed_out = isinstance(exc, (TimeoutError, *bridge.timeouts))
    status = ExecutionStatus.TIMEOUT if timed_out else ExecutionStatus.FAILED
    error = {"type": f"{type(exc).__module__}.{type(exc).__qualname__}", "message": str(exc)}
    return Context(goal, status=status, metadata={CALL_ERROR: error, **metadata})


def _failed_call(
    bridge: Bridge,
    goal: str,
    exc: Exception,
    *,
    started: datetime,
    elapsed: float,
    metadata: Mapping[str, Any],
) -> Judgment:
    ctx = failed_context(bridge, goal, exc, metadata)
    timed_out = ctx.status is ExecutionStatus.TIMEOUT
    return Judgment.error(
        f"the {bridge.name} call {'timed out' if timed_out else 'raised'}: "
        f"{type(exc).__name__}: {exc}",
        exc,
        metadata={
            **ctx.metadata,
            "cause": Cause.TIMEOUT if timed_out else Cause.ERROR,
            "execution_status": ctx.status.value,
            "started_at": started.isoformat(),
            "duration_s": round(elapsed, 6),
        },
    )


def missing_extra(module: str, framework: str, extra: str) -> ImportError:
    """The error of a bridge imported without its framework installed."""
    return ImportError(f"{module} needs {framework}: pip install 'jurist[{extra}]'")
