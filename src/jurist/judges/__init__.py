"""Judges. Deterministic ones (JSON and JSON Schema, text patterns, keywords, length,
commands, files) call no model and are pure functions of the context. Model-backed ones (a
template, a model and a classifier; acceptance criteria, G-Eval rubrics, pairwise comparison,
research verdicts) ask a model and record the prompt, the model and its parameters with each
judgment."""

from jurist.judges._command import CommandJudge
from jurist.judges._criteria import CriteriaJudge, CriterionJudge
from jurist.judges._files import DirMatchesJudge, FileContainsJudge, FileExistsJudge, FileJudge
from jurist.judges._hybrid import HybridJudge
from jurist.judges._model import ModelJudge
from jurist.judges._pairwise import PairwiseJudge
from jurist.judges._reading import (
    JsonFieldClassifier,
    LabelClassifier,
    ProbabilityClassifier,
    Reading,
    ScoreClassifier,
    Unreadable,
)
from jurist.judges._research import (
    Action,
    Decision,
    Refinement,
    ResearchVerdict,
    ResearchVerdictJudge,
    decide,
    refine_until_pass,
)
from jurist.judges._rubric import RubricJudge
from jurist.judges._rubric_result import CriterionResult, RubricResult
from jurist.judges._schema import JsonJudge, SchemaJudge
from jurist.judges._sources import SourceCountJudge
from jurist.judges._text import ContainsJudge, LengthJudge, RegexJudge

__all__ = [
    "Action",
    "CommandJudge",
    "ContainsJudge",
    "CriteriaJudge",
    "CriterionJudge",
    "CriterionResult",
    "Decision",
    "DirMatchesJudge",
    "FileContainsJudge",
    "FileExistsJudge",
    "FileJudge",
    "HybridJudge",
    "JsonFieldClassifier",
    "JsonJudge",
    "LabelClassifier",
    "LengthJudge",
    "ModelJudge",
    "PairwiseJudge",
    "ProbabilityClassifier",
    "Reading",
    "Refinement",
    "RegexJudge",
    "ResearchVerdict",
    "ResearchVerdictJudge",
    "RubricJudge",
    "RubricResult",
    "SchemaJudge",
    "ScoreClassifier",
    "SourceCountJudge",
    "Unreadable",
    "decide",
    "refine_until_pass",
]
