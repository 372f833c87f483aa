"""Deterministic judges: JSON and JSON Schema, text patterns, keywords, length, commands
and files. None of them calls a model; each is a pure function of the context."""

from jurist.judges._command import CommandJudge
from jurist.judges._files import DirMatchesJudge, FileContainsJudge, FileExistsJudge, FileJudge
from jurist.judges._schema import JsonJudge, SchemaJudge
from jurist.judges._text import ContainsJudge, LengthJudge, RegexJudge

__all__ = [
    "CommandJudge",
    "ContainsJudge",
    "DirMatchesJudge",
    "FileContainsJudge",
    "FileExistsJudge",
    "FileJudge",
    "JsonJudge",
    "LengthJudge",
    "RegexJudge",
    "SchemaJudge",
]
