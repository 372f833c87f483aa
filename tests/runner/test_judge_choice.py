"""`--judge` texts: rubric:ID, criterion:TEXT, or a spec or rubric file; nothing else."""

import hashlib
import json

import pytest
import yaml

from jurist.judges import ContainsJudge, CriterionJudge, RubricJudge
from jurist.rubrics import get_rubric
from jurist.runner import JUDGE_FORMS, JudgeChoiceError, resolve_judge

RUBRIC = {
    "id": "brevity",
    "name": "Brevity",
    "criteria": [
        {
            "name": "short",
            "description": "The answer is short.",
            "anchors": {1: "rambles", 2: "long", 3: "fair", 4: "short", 5: "terse"},
        }
    ],
}


def test_a_library_rubric_by_id(rubrics_path):
    choice = resolve_judge("rubric:answer-quality", model="openai:gpt-4o")
    assert isinstance(choice.judge, RubricJudge)
    assert choice.form == "rubric"
    assert choice.model == "openai:gpt-4o"
    version = get_rubric("answer-quality").version
    assert choice.details == {"rubric": "answer-quality", "rubric_version": version}


def test_a_criterion_records_its_text_and_the_default_model(monkeypatch):
    from jurist.settings import get_settings

    monkeypatch.setenv("JURIST_MODEL", "openai:gpt-4o-mini")
    get_settings.cache_clear()
    try:
        choice = resolve_judge("criterion: The answer is polite ")
    finally:
        monkeypatch.delenv("JURIST_MODEL")
        get_settings.cache_clear()
    assert isinstance(choice.judge, CriterionJudge)
    assert choice.details == {"criterion": "The answer is polite"}
    assert choice.model == "openai:gpt-4o-mini"
    described = choice.describe()
    assert described["text"] == "criterion: The answer is polite "
    assert described["kind"] == "model"


@pytest.mark.parametrize("suffix", [".yaml", ".json"])
def test_a_judge_spec_file_records_its_definition_and_sha256(tmp_path, suffix):
    path = tmp_path / f"spec{suffix}"
    spec = {"type": "contains", "keywords": ["refund"], "name": "mentions-refund"}
    path.write_text(json.dumps(spec) if suffix == ".json" else yaml.safe_dump(spec))
    choice = resolve_judge(str(path))
    assert isinstance(choice.judge, ContainsJudge)
    assert choice.judge.name == "mentions-refund"
    assert choice.form == "spec_file"
    assert choice.model is None  # a deterministic judge asks no model
    assert choice.details["file_sha256"] == hashlib.sha256(path.read_bytes()).hexdigest()
    assert choice.details["definition"] == {**spec, "keywords": ["refund"]}


def test_a_rubric_file_is_told_from_a_spec_by_its_criteria(tmp_path):
    path = tmp_path / "brevity.yml"
    path.write_text(yaml.safe_dump(RUBRIC))
    for text in (str(path), f"rubric:{path}"):
        choice = resolve_judge(text)
        assert isinstance(choice.judge, RubricJudge)
        assert choice.details["rubric"] == "brevity"
        assert "file_sha256" in choice.details


@pytest.mark.parametrize(
    "text",
    ["answer-quality", "contains", "rubric:", "criterion:  ", "judge:x", "spec.txt"],
)
def test_anything_else_is_refused_listing_the_forms(text):
    with pytest.raises(JudgeChoiceError) as raised:
        resolve_judge(text)
    message = str(raised.value)
    assert f"judge {text!r} is none of the forms" in message
    assert all(form in message for form in JUDGE_FORMS)


def test_an_unknown_rubric_id_lists_the_known_ones(rubrics_path):
    with pytest.raises(
        JudgeChoiceError, match=r"no rubric with id 'nope'; known: .*answer-quality"
    ):
        resolve_judge("rubric:nope")


def test_a_missing_spec_file_says_so(tmp_path):
    with pytest.raises(JudgeChoiceError, match="no such file"):
        resolve_judge(str(tmp_path / "absent.yaml"))


def test_a_malformed_spec_names_the_file_and_the_place(tmp_path):
    path = tmp_path / "bad.yaml"
    path.write_text("type: contains\nkeywords: []\n")
    with pytest.raises(JudgeChoiceError, match=r"bad.yaml: keywords: "):
        resolve_judge(str(path))


def test_a_spec_file_that_is_not_yaml_names_the_line(tmp_path):
    path = tmp_path / "bad.yaml"
    path.write_text("type: [contains\n")
    with pytest.raises(JudgeChoiceError, match="not valid YAML at line"):
        resolve_judge(str(path))
