"""Judges. Deterministic ones (JSON and JSON Schema, text patterns, keywords, length,
commands, files) call no model and are pure functions of the context. Model-backed ones (a
template, a model and a classifier; acceptance criteria, G-Eval rubrics, pairwise comparison,
research verdicts) ask a model and record the prompt, the model and its parameters with each
judgment. Grounding judges (claims, hallucination, faithfulness, RAG relevance, fact-checking)
decompose an output into claims and check each against its context or trusted sources; `rag`
reads a retrieval-augmented answer's question, passages and answer from a context. Agent-run
judges (tool calls, their arguments' schema, the trajectory's rules) read the trajectory a
context holds."""

from jurist.judges import rag
from jurist.judges._ask import Answer, CallPolicy, Failure, ModelRef, ask, model_error_judgment
from jurist.judges._claims import (
    ClaimExtractor,
    Claims,
    Extraction,
    SharedClaimExtractor,
    split_sentences,
)
from jurist.judges._command import CommandJudge
from jurist.judges._common import ReportedIssue, ReportRow, shorten
from jurist.judges._coverage import CoverageJudge, CoverageReport, relevance_f1
from jurist.judges._criteria import CriterionJudge, CriterionReport
from jurist.judges._criteria_judge import CriteriaJudge, CriteriaReport, CriterionRow
from jurist.judges._decomposed_scores import (
    DimensionScores,
    claims_scores,
    coverage_scores,
    focus_scores,
    on_scale,
    sentence_scores,
)
from jurist.judges._evidence import QuoteMatch, match_quote, nearest_sentence, quote_in_source
from jurist.judges._facts import (
    FactCheck,
    FactChecker,
    FactIssue,
    FactRow,
    FactSearch,
    FactsReport,
    PassageRow,
)
from jurist.judges._files import DirMatchesJudge, FileContainsJudge, FileExistsJudge, FileJudge
from jurist.judges._focus import (
    FocusJudge,
    FocusReport,
    KeyFacts,
    OffTopicIssue,
    StatementCheck,
    StatementRow,
)
from jurist.judges._grounding import (
    ClaimIssue,
    ClaimsReport,
    FaithfulnessJudge,
    Grounding,
    GroundingJudge,
    HallucinationJudge,
)
from jurist.judges._hybrid import HybridJudge
from jurist.judges._model import ModelJudge
from jurist.judges._pairwise import PairwiseJudge, PairwiseOrder, PairwiseReport, pairwise_context
from jurist.judges._pairwise_pointwise import PairwiseSignals, PairwiseWeights, RequirementRow
from jurist.judges._reading import (
    JsonFieldClassifier,
    LabelClassifier,
    ProbabilityClassifier,
    Reading,
    ScoreClassifier,
    Unreadable,
    closed_object_schema,
    json_object,
)
from jurist.judges._relevance import (
    AnswerRelevanceJudge,
    ContextRelevanceJudge,
    ContextRelevanceReport,
    PassageFailure,
    PassageVerdict,
)
from jurist.judges._research import (
    Action,
    Decision,
    Refinement,
    ResearchAdjustment,
    ResearchReport,
    ResearchSignals,
    ResearchVerdict,
    ResearchVerdictJudge,
    decide,
    refine_until_pass,
)
from jurist.judges._retrieval import Passage, Retriever, UnknownSource
from jurist.judges._rubric import RubricJudge
from jurist.judges._rubric_result import CriterionResult, RubricReport, RubricResult, TokensUsed
from jurist.judges._schema import JsonJudge, SchemaJudge
from jurist.judges._sentences import (
    SentenceCheckRow,
    SentenceChecksJudge,
    SentenceDimensionRow,
    SentencesReport,
)
from jurist.judges._sources import SourceCountJudge, SourcesReport
from jurist.judges._support import (
    ClaimCheck,
    ClaimRow,
    ClaimVerifier,
    Support,
    SupportOptions,
    SupportReport,
)
from jurist.judges._text import ContainsJudge, LengthJudge, RegexJudge
from jurist.judges._tool_calls import ToolArgumentsJudge, ToolCallJudge, json_equal
from jurist.judges._trajectory import ToolStep, TrajectoryJudge

__all__ = [
    "Action",
    "Answer",
    "AnswerRelevanceJudge",
    "CallPolicy",
    "ClaimCheck",
    "ClaimExtractor",
    "ClaimIssue",
    "ClaimRow",
    "ClaimVerifier",
    "Claims",
    "ClaimsReport",
    "CommandJudge",
    "ContainsJudge",
    "ContextRelevanceJudge",
    "ContextRelevanceReport",
    "CoverageJudge",
    "CoverageReport",
    "CriteriaJudge",
    "CriteriaReport",
    "CriterionJudge",
    "CriterionReport",
    "CriterionResult",
    "CriterionRow",
    "Decision",
    "DimensionScores",
    "DirMatchesJudge",
    "Extraction",
    "FactCheck",
    "FactChecker",
    "FactIssue",
    "FactRow",
    "FactSearch",
    "FactsReport",
    "Failure",
    "FaithfulnessJudge",
    "FileContainsJudge",
    "FileExistsJudge",
    "FileJudge",
    "FocusJudge",
    "FocusReport",
    "Grounding",
    "GroundingJudge",
    "HallucinationJudge",
    "HybridJudge",
    "JsonFieldClassifier",
    "JsonJudge",
    "KeyFacts",
    "LabelClassifier",
    "LengthJudge",
    "ModelJudge",
    "ModelRef",
    "OffTopicIssue",
    "PairwiseJudge",
    "PairwiseOrder",
    "PairwiseReport",
    "PairwiseSignals",
    "PairwiseWeights",
    "Passage",
    "PassageFailure",
    "PassageRow",
    "PassageVerdict",
    "ProbabilityClassifier",
    "QuoteMatch",
    "Reading",
    "Refinement",
    "RegexJudge",
    "ReportRow",
    "ReportedIssue",
    "RequirementRow",
    "ResearchAdjustment",
    "ResearchReport",
    "ResearchSignals",
    "ResearchVerdict",
    "ResearchVerdictJudge",
    "Retriever",
    "RubricJudge",
    "RubricReport",
    "RubricResult",
    "SchemaJudge",
    "ScoreClassifier",
    "SentenceCheckRow",
    "SentenceChecksJudge",
    "SentenceDimensionRow",
    "SentencesReport",
    "SharedClaimExtractor",
    "SourceCountJudge",
    "SourcesReport",
    "StatementCheck",
    "StatementRow",
    "Support",
    "SupportOptions",
    "SupportReport",
    "TokensUsed",
    "ToolArgumentsJudge",
    "ToolCallJudge",
    "ToolStep",
    "TrajectoryJudge",
    "UnknownSource",
    "Unreadable",
    "ask",
    "claims_scores",
    "closed_object_schema",
    "coverage_scores",
    "decide",
    "focus_scores",
    "json_equal",
    "json_object",
    "match_quote",
    "model_error_judgment",
    "nearest_sentence",
    "on_scale",
    "pairwise_context",
    "quote_in_source",
    "rag",
    "refine_until_pass",
    "relevance_f1",
    "sentence_scores",
    "shorten",
    "split_sentences",
]
