"""jurist: judge the outputs of language models and agents.

The top level names the vocabulary (`jurist.core`); juries live in `jurist.jury` and
concrete judges in `jurist.judges`.
"""

from importlib.metadata import PackageNotFoundError, version

from jurist.core import (
    AllOf,
    AnyOf,
    BaseJudge,
    BooleanScore,
    CategoricalScore,
    Check,
    Context,
    ExecutionStatus,
    FunctionJudge,
    JsonRoundTrip,
    Judge,
    JudgeKind,
    Judgment,
    JuristError,
    Named,
    Not,
    NotJsonSafeError,
    NumericScore,
    Score,
    Status,
    Usage,
    all_of,
    any_of,
    combined_kind,
    judge,
    judge_name,
    judge_sync,
    named,
    normalize,
    normalized_score,
    not_,
    record,
    require_judges,
    run_judge,
    run_sync,
    to_json_safe,
)

try:
    __version__ = version("jurist")
except PackageNotFoundError:  # a source tree that was never installed
    __version__ = "0.0.0"

__all__ = [
    "AllOf",
    "AnyOf",
    "BaseJudge",
    "BooleanScore",
    "CategoricalScore",
    "Check",
    "Context",
    "ExecutionStatus",
    "FunctionJudge",
    "JsonRoundTrip",
    "Judge",
    "JudgeKind",
    "Judgment",
    "JuristError",
    "Named",
    "Not",
    "NotJsonSafeError",
    "NumericScore",
    "Score",
    "Status",
    "Usage",
    "__version__",
    "all_of",
    "any_of",
    "combined_kind",
    "judge",
    "judge_name",
    "judge_sync",
    "named",
    "normalize",
    "normalized_score",
    "not_",
    "record",
    "require_judges",
    "run_judge",
    "run_sync",
    "to_json_safe",
]
