"""What a rubric judgment holds: the rubric's verdict (overall and per-criterion scores,
essential failures, what judging cost and how it was asked), kept in the judgment as the
rubric report."""

from pydantic import BaseModel, ConfigDict, Field

from jurist.core import Judgment, Report
from jurist.judges._common import omitted_when_none
from jurist.rubrics import CriterionMethod


class TokensUsed(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    input: int = 0
    output: int = 0


class CriterionResult(BaseModel):
    """One criterion's result.

    `score` is an integer 1..5: the rounded `expected_score`. `criterion_method` says how the
    criterion was scored (with its `method_option`). Asked plainly, with token probabilities
    the expected score is the mean of the score distribution (G-Eval), and `confidence` is
    how concentrated that distribution is (1 - its standard deviation / 2); without them
    both are the model's stated score and confidence. Scored by claims, coverage or
    sentence checks, the expected score is 1 + 4 x the aggregate of the small answers'
    probabilities, `signals` holds what it was read from (`p_min`, `coverage`, ...), the
    confidence is that judge's own, and there is no one prompt (`prompt_sha256` None).
    `method` says how the answers were read ("logprobs", "stated", or "mixed").
    `fallback` says why a criterion named another method was asked plainly instead (that
    method could not score this output: no source, no claim, no sentence). Thresholds are
    compared with the expected score, which carries the information the rounding drops.
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    criterion_name: str
    score: int = Field(ge=1, le=5)
    expected_score: float = Field(ge=1, le=5)
    confidence: float | None = Field(default=None, ge=0, le=1)
    reasoning: str
    is_essential: bool
    passed_threshold: bool
    weight: float
    threshold: float
    method: str
    criterion_method: CriterionMethod = CriterionMethod.PLAIN
    method_option: str | None = omitted_when_none()
    fallback: str | None = omitted_when_none()
    signals: dict[str, float] | None = omitted_when_none()
    distribution: dict[str, float] | None = None
    prompt_sha256: str | None
    reasoning_first: bool | None = True


class RubricResult(BaseModel):
    """A rubric's verdict: overall score, per-criterion results, essential failures and
    confidence, plus the rubric's id and the sampling temperature used (recorded so a
    judgment can be reproduced)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    rubric_id: str
    passed: bool
    overall_score: float = Field(ge=1, le=5)
    normalized_score: float = Field(ge=0, le=1)
    essential_failed: bool
    criteria_results: tuple[CriterionResult, ...]
    evaluation_time_ms: int
    tokens_used: TokensUsed
    llm_model: str
    temperature: float

    @classmethod
    def from_judgment(cls, judgment: Judgment) -> "RubricResult":
        """The result the judgment's rubric report holds, for a caller that needs one;
        KeyError when it holds no rubric report (an ERROR judgment holds none)."""
        report = RubricReport.of(judgment)
        if report is None:
            raise KeyError(f"the judgment ({judgment.status.value}) holds no rubric result")
        return report.rubric_result


class RubricReport(Report, kind="rubric"):
    """A rubric judged: its id, how the criteria's scores were read ("logprobs",
    "stated"), and the result; `aligned` when saved alignments mapped the result onto the
    human scale (per dimension, None where the result lacks a signal the alignment needs).

    `RubricReport.of` also reads a report of a kind derived from this one (the mean of
    sampled rubric judgments), so whoever reads a rubric's result reads theirs too."""

    rubric: str
    methods: tuple[str, ...]
    rubric_result: RubricResult
    aligned: dict[str, float | None] | None = omitted_when_none()
