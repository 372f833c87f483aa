"""jurist's vocabulary: contexts, judgments, scores, judges and their composition."""

from jurist.core._cause import Cause
from jurist.core._compose import (
    AllOf,
    AnyOf,
    BaseJudge,
    FunctionJudge,
    Named,
    Not,
    all_of,
    any_of,
    judge,
    named,
    not_,
)
from jurist.core._concurrency import SingleFlight, gather_ordered
from jurist.core._context import Context
from jurist.core._errors import JuristError
from jurist.core._jsonsafe import NotJsonSafeError, to_json_safe, to_json_text
from jurist.core._judge import (
    Judge,
    combined_kind,
    judge_name,
    judge_sync,
    require_judges,
    run_judge,
    run_sync,
)
from jurist.core._judgment import Check, Judgment, Usage, normalized_score
from jurist.core._params import (
    KEY_FACTS,
    MAX_CLAIMS,
    Count,
    Fraction,
    MinScore,
    Name,
    NonBlank,
    NonNegative,
    RubricScore,
    Text,
    Threshold,
    checked,
    min_score_of,
    threshold_of,
)
from jurist.core._plural import counted
from jurist.core._progress import Reporter, Step, Steps, report, reporting
from jurist.core._record import JsonRoundTrip, record
from jurist.core._report import REPORT_KEY, Report, ReportError, thawed
from jurist.core._scores import BooleanScore, CategoricalScore, NumericScore, Score, normalize
from jurist.core._status import ExecutionStatus, JudgeKind, Status
from jurist.core._strict_json import (
    DEFAULT_MAX_DEPTH,
    MAX_INT_DIGITS,
    StrictJsonError,
    loads_strict,
)

__all__ = [
    "DEFAULT_MAX_DEPTH",
    "KEY_FACTS",
    "MAX_CLAIMS",
    "MAX_INT_DIGITS",
    "REPORT_KEY",
    "AllOf",
    "AnyOf",
    "BaseJudge",
    "BooleanScore",
    "CategoricalScore",
    "Cause",
    "Check",
    "Context",
    "Count",
    "ExecutionStatus",
    "Fraction",
    "FunctionJudge",
    "JsonRoundTrip",
    "Judge",
    "JudgeKind",
    "Judgment",
    "JuristError",
    "MinScore",
    "Name",
    "Named",
    "NonBlank",
    "NonNegative",
    "Not",
    "NotJsonSafeError",
    "NumericScore",
    "Report",
    "ReportError",
    "Reporter",
    "RubricScore",
    "Score",
    "SingleFlight",
    "Status",
    "Step",
    "Steps",
    "StrictJsonError",
    "Text",
    "Threshold",
    "Usage",
    "all_of",
    "any_of",
    "checked",
    "combined_kind",
    "counted",
    "gather_ordered",
    "judge",
    "judge_name",
    "judge_sync",
    "loads_strict",
    "min_score_of",
    "named",
    "normalize",
    "normalized_score",
    "not_",
    "record",
    "report",
    "reporting",
    "require_judges",
    "run_judge",
    "run_sync",
    "thawed",
    "threshold_of",
    "to_json_safe",
    "to_json_text",
]
