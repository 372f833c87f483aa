"""What a rubric judgment holds, in the shape QV's output schema gives it."""

from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from jurist.core import Judgment


class TokensUsed(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    input: int = 0
    output: int = 0


class CriterionResult(BaseModel):
    """One criterion's result.

    `score` is an integer 1..5: the rounded `expected_score`. With token probabilities the
    expected score is the mean of the score distribution (G-Eval), and `confidence` is how
    concentrated that distribution is (1 - its standard deviation / 2); without them both
    are the model's stated score and confidence. `method` says which ("logprobs" or
    "stated"). Thresholds are compared with the expected score, which carries the
    information the rounding drops.
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
    distribution: dict[str, float] | None = None
    prompt_sha256: str
    reasoning_first: bool = True


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
        """The result a RubricJudge's judgment carries; KeyError when it has none (an
        ERROR judgment carries none)."""
        data: Any = judgment.metadata.get("rubric_result")
        if data is None:
            raise KeyError(f"the judgment ({judgment.status.value}) holds no rubric result")
        return cls.model_validate(_thawed(data))


def _thawed(value: Any) -> Any:
    # Judgment metadata is frozen into mappings and tuples; pydantic wants dicts and lists.
    if hasattr(value, "items"):
        return {k: _thawed(v) for k, v in value.items()}
    if isinstance(value, tuple | list):
        return [_thawed(v) for v in value]
    return value
