"""The rubric library: the built-in rubrics, malformed files, JURIST_RUBRICS_PATH, lookup."""

import copy
import json
import os
from pathlib import Path
from typing import Any

import pytest
import yaml

import jurist.rubrics
from jurist.rubrics import Rubric, RubricError, get_rubric, list_rubrics, load_rubric
from jurist.rubrics._library import locate_rubrics
from jurist.settings import get_settings

LIBRARY = Path(jurist.rubrics.__file__).parent / "library"
BUILT_IN_FILES = sorted(LIBRARY.glob("*.yaml"))
EXPECTED_IDS = {"answer-quality", "code", "output-quality", "summarization", "tone", "user-story"}

VALID: dict[str, Any] = {
    "id": "essay",
    "name": "Essay",
    "criteria": [
        {
            "name": "coherence",
            "description": "Holds together.",
            "anchors": {1: "none", 2: "weak", 3: "some", 4: "good", 5: "full"},
        },
        {
            "name": "style",
            "description": "Reads well.",
            "anchors": {1: "bad", 2: "poor", 3: "fair", 4: "good", 5: "fine"},
        },
    ],
}


@pytest.fixture
def no_user_rubrics(monkeypatch):
    monkeypatch.delenv("JURIST_RUBRICS_PATH", raising=False)
    get_settings.cache_clear()
    yield
    get_settings.cache_clear()


def write(directory: Path, name: str, data: Any) -> Path:
    path = directory / name
    path.write_text(yaml.safe_dump(data, sort_keys=False))
    return path


# --- the built-in rubrics -------------------------------------------------------------------


def test_the_library_has_the_expected_rubrics():
    assert {path.stem for path in BUILT_IN_FILES} == EXPECTED_IDS


@pytest.mark.parametrize("path", BUILT_IN_FILES, ids=lambda path: path.stem)
def test_every_built_in_loads_with_five_anchors_and_steps(path):
    rubric = load_rubric(path)
    assert rubric.id == path.stem  # get_rubric finds a file by its stem first
    assert rubric.name
    assert rubric.description
    for criterion in rubric.criteria:
        assert sorted(criterion.anchors) == [1, 2, 3, 4, 5], criterion.name
        assert len(set(criterion.anchors.values())) == 5, f"{criterion.name}: repeated anchor"
        assert criterion.steps, f"{rubric.id}.{criterion.name} has no steps"
        for example in criterion.examples:
            assert example.reasoning, f"{rubric.id}.{criterion.name}: example without reasoning"


def test_the_built_ins_include_few_shot_examples_at_both_ends():
    scores = [
        example.score
        for path in BUILT_IN_FILES
        for criterion in load_rubric(path).criteria
        for example in criterion.examples
    ]
    assert min(scores) <= 2
    assert max(scores) == 5


@pytest.mark.parametrize(
    ("rubric_id", "criterion"),
    [("answer-quality", "correctness"), ("code", "correctness"), ("summarization", "consistency")],
)
def test_correctness_like_criteria_are_essential(no_user_rubrics, rubric_id, criterion):
    assert get_rubric(rubric_id).criterion(criterion).essential


def test_requested_criteria_are_present(no_user_rubrics):
    names = {rubric.id: [c.name for c in rubric.criteria] for rubric in list_rubrics()}
    assert names["answer-quality"] == ["correctness", "completeness", "clarity", "helpfulness"]
    assert names["user-story"] == ["actionability", "completeness", "testability"]
    assert names["code"] == ["correctness", "readability", "tests"]
    assert 1 <= len(names["tone"]) <= 2


# --- malformed rubrics ----------------------------------------------------------------------


def _mutated(change) -> dict[str, Any]:
    data = copy.deepcopy(VALID)
    change(data)
    return data


MALFORMED = {
    "missing anchor 3": (
        _mutated(lambda d: d["criteria"][0]["anchors"].pop(3)),
        "criteria[0] (coherence).anchors",
        "missing [3]",
    ),
    "weight 0": (
        _mutated(lambda d: d["criteria"][1].update(weight=0)),
        "criteria[1] (style).weight",
        "greater than 0",
    ),
    "duplicate criterion names": (
        _mutated(lambda d: d["criteria"][1].update(name="coherence")),
        "criteria:",
        "'coherence' appears twice (criteria[0] and criteria[1])",
    ),
    "bad id": (_mutated(lambda d: d.update(id="My Essay")), "id:", "lower case"),
    "unknown criterion field": (
        _mutated(lambda d: d["criteria"][0].update(colour="red")),
        "criteria[0] (coherence).colour",
        "Extra inputs are not permitted",
    ),
    "unknown top-level field": (
        _mutated(lambda d: d.update(author="me")),
        "author:",
        "Extra inputs are not permitted",
    ),
    "example score out of range": (
        _mutated(lambda d: d["criteria"][0].update(examples=[{"score": 7, "output": "x"}])),
        "criteria[0] (coherence).examples[0].score",
        "less than or equal to 5",
    ),
    "empty anchor": (
        _mutated(lambda d: d["criteria"][0]["anchors"].update({2: "  "})),
        "criteria[0] (coherence).anchors",
        "[2] are empty",
    ),
    "no criteria": (_mutated(lambda d: d.update(criteria=[])), "criteria:", "at least 1"),
    "no name": (_mutated(lambda d: d.pop("name")), "name:", "Field required"),
}


@pytest.mark.parametrize(("data", "field", "problem"), MALFORMED.values(), ids=MALFORMED.keys())
def test_malformed_rubric_names_file_field_and_problem(tmp_path, data, field, problem):
    path = write(tmp_path, "essay.yaml", data)
    with pytest.raises(RubricError) as caught:
        load_rubric(path)
    message = str(caught.value)
    assert message.startswith(f"{path}: ")
    assert field in message
    assert problem in message


def test_every_problem_of_a_file_is_reported_at_once(tmp_path):
    data = _mutated(lambda d: (d["criteria"][0].update(weight=0), d.update(id="BAD")))
    with pytest.raises(RubricError) as caught:
        load_rubric(write(tmp_path, "essay.yaml", data))
    lines = str(caught.value).splitlines()
    assert len(lines) == 2
    assert any("criteria[0] (coherence).weight" in line for line in lines)
    assert any(": id: " in line for line in lines)


def test_not_yaml_names_file_and_line(tmp_path):
    path = tmp_path / "broken.yaml"
    path.write_text("id: essay\ncriteria: [\n  - name: x\n")
    with pytest.raises(RubricError, match=r"not valid YAML at line \d+") as caught:
        load_rubric(path)
    assert str(caught.value).startswith(str(path))


@pytest.mark.parametrize(("text", "kind"), [("- a\n- b\n", "list"), ("just text\n", "str")])
def test_not_a_mapping(tmp_path, text, kind):
    path = tmp_path / "essay.yaml"
    path.write_text(text)
    with pytest.raises(RubricError, match=f"must be a mapping, not {kind}") as caught:
        load_rubric(path)
    assert str(path) in str(caught.value)


def test_an_empty_file_is_not_a_mapping(tmp_path):
    path = tmp_path / "essay.yaml"
    path.write_text("")
    with pytest.raises(RubricError, match="must be a mapping, not NoneType"):
        load_rubric(path)


def test_missing_file(tmp_path):
    with pytest.raises(RubricError, match="cannot be read"):
        load_rubric(tmp_path / "nowhere.yaml")


def test_a_json_rubric_loads(tmp_path):
    path = tmp_path / "essay.json"
    path.write_text(json.dumps(VALID))
    assert load_rubric(path).criterion("style").anchors[5] == "fine"


# --- JURIST_RUBRICS_PATH and lookup ---------------------------------------------------------


def test_user_directory_overrides_a_built_in_and_adds_new_ones(rubrics_path):
    override = {**VALID, "id": "tone", "name": "House tone"}
    write(rubrics_path, "tone.yaml", override)
    write(rubrics_path, "essay.yaml", VALID)

    assert get_rubric("tone").name == "House tone"
    assert get_rubric("essay").criterion("style").description == "Reads well."
    by_id = {located.rubric.id: located for located in locate_rubrics()}
    assert by_id["tone"].rubric.name == "House tone"
    assert by_id["tone"].builtin is False
    assert by_id["tone"].path == rubrics_path / "tone.yaml"
    assert by_id["essay"].builtin is False
    assert by_id["code"].builtin is True  # built-ins not overridden are still there
    assert [r.id for r in list_rubrics()] == sorted(by_id)


def test_a_user_rubric_is_found_by_id_when_its_file_is_named_otherwise(rubrics_path):
    write(rubrics_path, "my-essay-rubric.yml", VALID)
    assert get_rubric("essay").name == "Essay"


def test_a_malformed_user_rubric_is_reported_not_skipped(rubrics_path):
    broken = write(rubrics_path, "broken.yaml", _mutated(lambda d: d.update(id="Nope!")))
    with pytest.raises(RubricError, match=str(broken)):
        list_rubrics()


def test_several_directories_first_wins(monkeypatch, tmp_path):
    first, second = tmp_path / "a", tmp_path / "b"
    first.mkdir()
    second.mkdir()
    write(first, "essay.yaml", {**VALID, "name": "From a"})
    write(second, "essay.yaml", {**VALID, "name": "From b"})
    monkeypatch.setenv("JURIST_RUBRICS_PATH", os.pathsep.join([str(first), str(second)]))
    get_settings.cache_clear()
    try:
        assert get_rubric("essay").name == "From a"
    finally:
        monkeypatch.delenv("JURIST_RUBRICS_PATH")
        get_settings.cache_clear()


def test_unknown_id_lists_the_known_ones(no_user_rubrics):
    with pytest.raises(RubricError) as caught:
        get_rubric("nope")
    message = str(caught.value)
    assert "'nope'" in message
    for rubric_id in EXPECTED_IDS:
        assert rubric_id in message


def test_get_rubric_by_path(tmp_path, no_user_rubrics):
    path = write(tmp_path, "anything.yaml", VALID)
    assert get_rubric(path).id == "essay"
    assert get_rubric(str(path)).id == "essay"


def test_get_rubric_by_a_path_that_does_not_exist_is_an_error_not_an_id_lookup(tmp_path):
    with pytest.raises(RubricError, match="cannot be read"):
        get_rubric(str(tmp_path / "missing.yaml"))


# --- the model ------------------------------------------------------------------------------


def test_only_keeps_the_named_criteria_in_the_order_given(no_user_rubrics):
    rubric = get_rubric("summarization")
    narrowed = rubric.only("relevance", "coherence")
    assert [c.name for c in narrowed.criteria] == ["relevance", "coherence"]
    assert narrowed.id == rubric.id
    assert narrowed.criterion("coherence") == rubric.criterion("coherence")
    assert len(rubric.criteria) == 4  # the original is unchanged


def test_only_an_unknown_criterion_names_the_ones_there_are(no_user_rubrics):
    with pytest.raises(KeyError, match="no criterion 'tidiness'") as caught:
        get_rubric("summarization").only("coherence", "tidiness")
    assert "fluency" in str(caught.value)


def test_essential_minimum_defaults_to_threshold(tmp_path):
    data = _mutated(
        lambda d: (
            d["criteria"][0].update(essential=True, threshold=4),
            d["criteria"][1].update(essential=True, threshold=4, minimum=2),
        )
    )
    rubric = load_rubric(write(tmp_path, "essay.yaml", data))
    assert rubric.criterion("coherence").essential_minimum == 4
    assert rubric.criterion("style").essential_minimum == 2


def test_anchors_are_kept_in_scale_order(tmp_path):
    data = _mutated(
        lambda d: d["criteria"][0].update(anchors={5: "e", 3: "c", 1: "a", 4: "d", 2: "b"})
    )
    rubric = load_rubric(write(tmp_path, "essay.yaml", data))
    assert list(rubric.criterion("coherence").anchors) == [1, 2, 3, 4, 5]


def test_a_rubric_round_trips_through_json(no_user_rubrics):
    rubric = get_rubric("tone")
    assert Rubric.model_validate_json(rubric.model_dump_json()) == rubric


def test_a_rubric_file_is_parsed_once_until_its_text_changes(tmp_path):
    data = yaml.safe_load(BUILT_IN_FILES[0].read_text())
    path = write(tmp_path, "mine.yaml", data)
    first = load_rubric(path)
    assert load_rubric(path) is first  # the same text: the parse is reused
    changed = copy.deepcopy(data)
    changed["description"] = "A changed description."
    write(tmp_path, "mine.yaml", changed)
    again = load_rubric(path)
    assert again is not first
    assert again.description == "A changed description."
