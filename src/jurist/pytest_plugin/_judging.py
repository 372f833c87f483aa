"""`assert_judgment`: judge in a test, and turn the judgment into the test's outcome."""

import time
from collections.abc import Mapping
from typing import Any, Literal, NoReturn

import pytest

from jurist.core import Context, Judge, Judgment, Status, judge_name, judge_sync, to_json_text
from jurist.pytest_plugin._log import ModelChoice, active_log

AbstainPolicy = Literal["skip", "fail", "pass"]
JudgeLike = Judge | str | Mapping[str, Any]

_FIELDS = ("goal", "output", "context", "reference", "metadata", "workspace")
_SHOWN = 200  # characters of each input a failure message quotes


def build_judge(judge_or_spec: JudgeLike, model: ModelChoice) -> Judge:
    """A Judge (or jury, cascade) as it is; a spec dict; or a spec string: `rubric:ID`,
    `criterion:TEXT`, a spec file's path, or a bare `type` (`json`). Model-backed judges
    built here ask `model` (None: the JURIST_MODEL setting)."""
    # Imported when a test first judges: pytest loads the plugin in every session, and the
    # registry of every judge is most of what importing it would cost.
    from jurist.specs import as_judge

    return as_judge(judge_or_spec, model=model)


def context_of(ctx: Context | None, fields: Mapping[str, Any]) -> Context:
    """`ctx` as it is, or a Context of the keyword fields (goal=, output=, context=, ...)."""
    unknown = sorted(set(fields) - set(_FIELDS))
    if unknown:
        raise TypeError(f"unknown field {unknown[0]!r}: the fields are {', '.join(_FIELDS)}")
    if ctx is not None:
        if fields:
            raise TypeError("pass a Context or keyword fields, not both")
        if not isinstance(ctx, Context):
            raise TypeError(f"ctx: a jurist.core.Context, got {type(ctx).__name__}")
        return ctx
    if "output" not in fields:
        raise TypeError("no output to judge: pass a Context or output=...")
    values = dict(fields)
    values.setdefault("goal", "")
    return Context(**values)


def judge_in_test(
    judge_or_spec: JudgeLike, ctx: Context | None, model: ModelChoice, fields: Mapping[str, Any]
) -> tuple[str, Judgment]:
    """The judge's name and its judgment, recorded in the session's log under the test
    running now."""
    log = active_log()
    if model is None and log is not None:
        model = log.current_model()
    judge = build_judge(judge_or_spec, model)
    context = context_of(ctx, fields)
    started = time.perf_counter()
    judgment = judge_sync(judge, context)
    name = judge_name(judge)
    if log is not None:
        log.record(name, judgment, time.perf_counter() - started)
    return name, judgment


def assert_judgment(
    judge_or_spec: JudgeLike,
    ctx: Context | None = None,
    /,
    *,
    model: ModelChoice = None,
    abstain: AbstainPolicy = "skip",
    **fields: Any,
) -> Judgment:
    """Judge `ctx` (or a Context of the keyword fields: goal=, output=, context=,
    reference=, metadata=) and return the judgment when it passes.

    `judge_or_spec` is a Judge, a jury or cascade, a spec dict, or a spec string
    (`criterion:TEXT`, `rubric:ID`, a spec file's path, a spec type such as `json`).
    Model-backed judges built from a spec ask `model`; by default the test's `jurist_model`
    fixture (`--jurist-model`, else the JURIST_MODEL setting, unless a conftest.py overrides
    the fixture).

    A FAIL fails the test with the status, score, reasoning and failed checks; an ERROR
    fails it with its cause (an ERROR never passes); an ABSTAIN skips the test with its
    reason, unless `abstain="fail"` fails it or `abstain="pass"` lets it pass.
    """
    check_abstain(abstain)
    context = context_of(ctx, fields)
    name, judgment = judge_in_test(judge_or_spec, context, model, {})
    return verdict(name, judgment, context, abstain)


def check_abstain(abstain: str) -> None:
    if abstain not in ("skip", "fail", "pass"):
        raise ValueError(f"abstain: 'skip', 'fail' or 'pass', got {abstain!r}")


def verdict(name: str, judgment: Judgment, ctx: Context, abstain: AbstainPolicy) -> Judgment:
    """`judgment` when the test may go on; otherwise the test fails or is skipped."""
    if judgment.status is Status.PASS:
        return judgment
    if judgment.status is Status.ABSTAIN:
        if abstain == "pass":
            return judgment
        if abstain == "skip":
            cause = judgment.cause
            why = f" ({cause.value})" if cause is not None else ""
            pytest.skip(
                f"jurist: judge {name!r} abstained{why}: {judgment.reasoning or 'no reason given'}"
            )
    _fail(name, judgment, ctx)


def _fail(name: str, judgment: Judgment, ctx: Context) -> NoReturn:
    pytest.fail(describe_judgment(name, judgment, ctx), pytrace=False)


def describe_judgment(name: str, judgment: Judgment, ctx: Context | None = None) -> str:
    """A judgment as a failure message: the judge, status, score, reasoning, cause, failed
    checks, and the inputs judged."""
    head = f"jurist: judge {name!r}: {judgment.status.value.upper()}"
    if judgment.score is not None:
        head += f", score {_score(judgment)}"
    if judgment.confidence is not None:
        head += f", confidence {judgment.confidence:.2f}"
    lines = [head, f"  reasoning: {judgment.reasoning or '(none given)'}"]
    if judgment.status in (Status.ERROR, Status.ABSTAIN):
        cause = judgment.cause
        lines.append(f"  cause: {cause.value if cause is not None else 'not stated'}")
        error = judgment.error_info
        if error is not None:
            lines.append(f"  error: {error.get('type')}: {error.get('message')}")
    failed = [check for check in judgment.checks if not check.passed]
    if failed:
        lines.append("  failed checks:")
        lines += [f"    - {c.name}" + (f": {c.message}" if c.message else "") for c in failed]
    if ctx is not None:
        lines.append("  judged:")
        if ctx.goal:
            lines.append(f"    goal: {_short(ctx.goal)}")
        lines.append(f"    output: {_short(ctx.output_text())}")
        if ctx.reference is not None:
            reference = ctx.reference
            text = reference if isinstance(reference, str) else to_json_text(reference)
            lines.append(f"    reference: {_short(text)}")
    return "\n".join(lines)


def _score(judgment: Judgment) -> str:
    score = judgment.score
    value = getattr(score, "value", None)
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float | int):
        low, high = getattr(score, "min", 0.0), getattr(score, "max", 1.0)
        return f"{value:g} (of {low:g}..{high:g})"
    return str(value)


def _short(text: str) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= _SHOWN else flat[: _SHOWN - 1] + "…"
