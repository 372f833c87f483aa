"""What every deterministic judge shares: kind, names, composition, serialisable results."""

import types
from pathlib import Path

import pytest

import jurist.judges
from jurist.core import BaseJudge, Context, Judge, JudgeKind, Judgment, Status, judge_sync
from jurist.judges import (
    CommandJudge,
    ContainsJudge,
    FileJudge,
    JsonJudge,
    LengthJudge,
    RegexJudge,
    SchemaJudge,
)


def every_judge(tmp_path: Path) -> dict[str, BaseJudge]:
    return {
        "schema": SchemaJudge({"type": "object", "required": ["answer"]}),
        "json": JsonJudge(),
        "regex": RegexJudge(r"\d+ days"),
        "contains": ContainsJudge(["refund"]),
        "length": LengthJudge(max_words=3),
        "command": CommandJudge(["sh", "-c", "exit 1"]),
        "file_exists": FileJudge.exists("missing.txt"),
        "file_contains": FileJudge.contains("missing.txt", "x"),
        "dir_matches": FileJudge.matches_dir(tmp_path),
    }


def test_every_judge_is_deterministic_and_named_after_its_class(tmp_path: Path):
    for default_name, judge in every_judge(tmp_path).items():
        assert isinstance(judge, Judge)
        assert judge.kind is JudgeKind.DETERMINISTIC
        assert judge.name == default_name


def test_public_names():
    assert set(jurist.judges.__all__) >= {
        "SchemaJudge",
        "JsonJudge",
        "RegexJudge",
        "ContainsJudge",
        "LengthJudge",
        "CommandJudge",
        "FileJudge",
    }
    for name in jurist.judges.__all__:
        value = getattr(jurist.judges, name)
        if isinstance(value, types.ModuleType):
            # A helper namespace (`rag`) is a public module of its own.
            assert value.__name__ == f"jurist.judges.{name}"
            continue
        assert value.__module__.startswith("jurist.judges._")


@pytest.mark.parametrize(
    "make",
    [
        lambda **kw: SchemaJudge({}, **kw),
        JsonJudge,
        lambda **kw: RegexJudge("x", **kw),
        lambda **kw: ContainsJudge("x", **kw),
        lambda **kw: LengthJudge(max_chars=1, **kw),
        lambda **kw: CommandJudge("true", **kw),
        lambda **kw: FileJudge.exists("x", **kw),
        lambda **kw: FileJudge.contains("x", "y", **kw),
        lambda **kw: FileJudge.matches_dir("x", **kw),
    ],
)
def test_name_and_description_can_be_given(make):
    judge = make(name="custom", description="what it checks")
    assert judge.name == "custom"
    assert judge.description == "what it checks"


def test_judgments_of_every_judge_round_trip_through_json(tmp_path: Path):
    ctx = Context(
        "answer", output='{"answer": "a refund in 30 days, no questions"}', workspace=tmp_path
    )
    for judge in every_judge(tmp_path).values():
        result = judge_sync(judge, ctx)
        assert result.status in (Status.PASS, Status.FAIL)
        assert Judgment.from_json(result.to_json()) == result


def test_judges_compose(tmp_path: Path):
    ctx = Context("answer", output='{"answer": "Refunds within 30 days."}')
    both = SchemaJudge({"required": ["answer"]}) & ContainsJudge(["refund", "30 days"])
    assert judge_sync(both, ctx).status is Status.PASS
    assert judge_sync(~LengthJudge(max_words=2), ctx).status is Status.PASS
    either = RegexJudge("nope") | JsonJudge()
    assert judge_sync(either, ctx).status is Status.PASS


def test_judging_twice_gives_the_same_judgment(tmp_path: Path):
    ctx = Context("answer", output="short answer", workspace=tmp_path)
    for judge in every_judge(tmp_path).values():
        first = judge_sync(judge, ctx).evolve(metadata={})
        second = judge_sync(judge, ctx).evolve(metadata={})
        assert first == second
