"""The evidence of a pointwise comparison: each output held to the instruction's own
requirements, the facts a program can check, and how the signals combine.

Asked plainly which of two outputs is better, the 1.5B embedded model prefers the one shown
second and the longer one. Scored one output at a time against the same yes/no requirements
it has no "other" to prefer, and a requirement is asked of A exactly as of B, so swapping
the outputs swaps the evidence. The requirements come from the instruction alone (or from
the rubric), never from the outputs, so neither output shapes the questions.
"""

import math
from collections.abc import Mapping, Sequence
from typing import Any

from pydantic import Field

from jurist.core import Context, Judgment, Status
from jurist.judges._ask import Answer, CallPolicy, ModelRef, ask
from jurist.judges._common import ReportRow
from jurist.judges._criteria import short_name
from jurist.judges._criteria_judge import CriteriaJudge, CriteriaReport
from jurist.judges._reading import Unreadable, json_object
from jurist.llm import Response
from jurist.prompts import Prompt, PromptTemplate, answer_schema

REQUIREMENTS_FIELD = "requirements"
MAX_REQUIREMENTS = 3
REQUIREMENTS_TOKENS = 160
# Said of every output whatever the instruction: a wrong statement is never a merit.
CORRECTNESS = "Everything the response states is correct."


class PairwiseWeights(ReportRow):
    """How the signals of a pointwise comparison add up to log-odds that A is better.

    `requirements` multiplies the difference of the outputs' mean P(yes) over the
    requirements (-1..1); `direct` the both-order direct answer's P(A better) - 0.5, doubled
    (-1..1); `errors` the difference of the counts of miscalculations a program found
    (B's minus A's, so a wrong sum counts against its output); `length` the log of the
    ratio of A's length to B's, and is never positive: length may only be discounted, never
    rewarded.

    The defaults are set by hand and checked on human-labelled development pairs
    (bench/pairwise_dev.py), where a logistic regression without intercept (an intercept
    would be a preference for a position) fitted on them lands close (requirements 4.7,
    direct 1.4) and is no better out of fold. The fit also asks for a negative length
    weight, which the default leaves at 0: it would make a short answer beat a complete
    one for its brevity. `errors` is fixed, not fitted: the development pairs hold too few
    checkable statements to fit it, and a miscalculation is decisive on its own.
    """

    requirements: float = 4.0
    direct: float = 1.5
    errors: float = 3.0
    length: float = Field(0.0, le=0.0)


class RequirementRow(ReportRow):
    """One requirement asked of both outputs: P(yes) for A and for B (None when it could
    not be read as a probability)."""

    requirement: str
    p_yes_a: float | None
    p_yes_b: float | None


class PairwiseSignals(ReportRow):
    """The signals of a pointwise comparison, each oriented so that a positive value
    favours A, and the log-odds they add up to with the weights."""

    requirements: float
    direct: float | None
    errors: float
    length: float
    log_odds: float


def requirements_prompt() -> Prompt:
    return Prompt(PromptTemplate.named("pairwise_requirements"), _requirements_schema())


def _requirements_schema() -> dict[str, Any]:
    schema: dict[str, Any] = answer_schema("pairwise_requirements")
    schema["properties"][REQUIREMENTS_FIELD]["maxItems"] = MAX_REQUIREMENTS
    return schema


def read_requirements(response: Response) -> list[str]:
    """The distinct, non-blank requirements of a decomposition answer, at most three."""
    value = json_object(response).get(REQUIREMENTS_FIELD)
    if not isinstance(value, list):
        raise Unreadable(f"the answer has no {REQUIREMENTS_FIELD!r} list")
    found: list[str] = []
    for item in value:
        text = item.strip() if isinstance(item, str) else ""
        if text and text.casefold() not in {f.casefold() for f in found}:
            found.append(text)
    if not found:
        raise Unreadable("the answer lists no requirement")
    return found[:MAX_REQUIREMENTS]


async def instruction_requirements(
    ctx: Context,
    model: ModelRef,
    *,
    reference: str,
    policy: CallPolicy,
    judge: str,
) -> Answer[list[str]] | Judgment:
    """The instruction's requirements, from the instruction (and reference) alone."""
    return await ask(
        model,
        requirements_prompt().reading(read_requirements),
        {"instruction": ctx.goal, "reference": reference},
        policy=policy.but(max_tokens=REQUIREMENTS_TOKENS),
        judge=judge,
    )


def with_correctness(requirements: Sequence[str]) -> list[str]:
    """The requirements with the correctness one added, unless one already says it."""
    listed = list(requirements)
    if not any("correct" in r.casefold() or "accura" in r.casefold() for r in listed):
        listed.append(CORRECTNESS)
    return listed


def requirements_judge(
    requirements: Sequence[str], model: ModelRef, policy: CallPolicy, name: str
) -> CriteriaJudge:
    """All requirements of one output asked in one call, P(yes) read at each answer."""
    judge = CriteriaJudge(
        list(requirements),
        together=True,
        template="pairwise_requirements_check",
        name=name,
        policy=policy,
    )
    judge.model = model
    return judge


def p_yes_values(judgment: Judgment, requirements: Sequence[str]) -> list[float | None]:
    """Each requirement's P(yes) in one output's criteria judgment; without a probability,
    1.0 for a requirement met and 0.0 for one not met (None if it could not be judged)."""
    report = CriteriaReport.of(judgment)
    if report is None:
        return [None for _ in requirements]
    rows = {row.criterion: row for row in report.criteria}
    values: list[float | None] = []
    for requirement in requirements:
        row = rows.get(requirement)
        if row is None:
            values.append(None)
        elif row.p_yes is not None:
            values.append(row.p_yes)
        elif row.status in (Status.PASS, Status.FAIL):
            values.append(1.0 if row.status is Status.PASS else 0.0)
        else:
            values.append(None)
    return values


def _mean(values: Sequence[float | None]) -> float:
    known = [v for v in values if v is not None]
    return sum(known) / len(known) if known else 0.5


def length_ratio(a: str, b: str) -> float:
    """log(len A / len B) in words, each counted as at least one."""
    return math.log(max(len(a.split()), 1) / max(len(b.split()), 1))


def combine(
    weights: PairwiseWeights,
    *,
    rows: Sequence[RequirementRow],
    direct_p_a: float | None,
    errors_a: int,
    errors_b: int,
    length: float,
) -> PairwiseSignals:
    """The signals oriented towards A, and the log-odds that A is better."""
    requirements = _mean([r.p_yes_a for r in rows]) - _mean([r.p_yes_b for r in rows])
    direct = None if direct_p_a is None else (direct_p_a - 0.5) * 2
    errors = float(errors_b - errors_a)
    log_odds = (
        weights.requirements * requirements
        + weights.direct * (direct or 0.0)
        + weights.errors * errors
        + weights.length * length
    )
    return PairwiseSignals(
        requirements=requirements,
        direct=direct,
        errors=errors,
        length=length,
        log_odds=log_odds,
    )


def probability(log_odds: float) -> float:
    return 1.0 / (1.0 + math.exp(-max(min(log_odds, 50.0), -50.0)))


def requirement_lines(rows: Sequence[RequirementRow]) -> list[str]:
    def shown(value: float | None) -> str:
        return "-" if value is None else f"{value:.2f}"

    return [
        f"- {short_name(r.requirement)}: A {shown(r.p_yes_a)}, B {shown(r.p_yes_b)}" for r in rows
    ]


def weights_of(value: PairwiseWeights | Mapping[str, float] | None) -> PairwiseWeights:
    if value is None:
        return PairwiseWeights()
    if isinstance(value, PairwiseWeights):
        return value
    return PairwiseWeights(**value)
