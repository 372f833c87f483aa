"""`jurist rubrics list|show|check` as a user runs them, including bad input."""

import json
from pathlib import Path

import pytest
import yaml
from typer.testing import CliRunner

import jurist.rubrics
from jurist.cli import app
from jurist.rubrics import Rubric

LIBRARY = Path(jurist.rubrics.__file__).parent / "library"
BUILT_IN_IDS = sorted(path.stem for path in LIBRARY.glob("*.yaml"))

ESSAY = {
    "id": "essay",
    "name": "Essay",
    "criteria": [
        {
            "name": "coherence",
            "description": "Holds together.",
            "anchors": {1: "none", 2: "weak", 3: "some", 4: "good", 5: "full"},
            "examples": [{"score": 1, "output": "x y z", "reasoning": "no thread"}],
            "essential": True,
            "threshold": 4,
        },
    ],
}

runner = CliRunner()


def run(*args: str):
    return runner.invoke(app, list(args))


@pytest.fixture(autouse=True)
def user_rubrics(rubrics_path):
    """Every test here has its own, empty, user rubric directory."""
    return rubrics_path


def write(path: Path, data: object) -> Path:
    path.write_text(yaml.safe_dump(data, sort_keys=False))
    return path


# --- list -----------------------------------------------------------------------------------


def test_list_json_has_every_built_in_with_its_criteria():
    result = run("rubrics", "list", "--json")
    assert result.exit_code == 0, result.output
    rows = json.loads(result.stdout)
    assert [row["id"] for row in rows] == BUILT_IN_IDS
    by_id = {row["id"]: row for row in rows}
    assert by_id["code"]["criteria"] == ["correctness", "readability", "tests"]
    assert {row["source"] for row in rows} == {"built-in"}
    assert Path(by_id["tone"]["path"]) == LIBRARY / "tone.yaml"


def test_list_shows_user_rubrics_and_overrides_with_their_directory(user_rubrics):
    write(user_rubrics / "essay.yaml", ESSAY)
    write(user_rubrics / "tone.yaml", {**ESSAY, "id": "tone", "name": "House tone"})
    rows = {row["id"]: row for row in json.loads(run("rubrics", "list", "--json").stdout)}
    assert rows["essay"]["source"] == str(user_rubrics)
    assert rows["tone"]["source"] == str(user_rubrics)
    assert rows["tone"]["name"] == "House tone"
    assert rows["code"]["source"] == "built-in"


def test_list_table_names_each_rubric_and_its_source(user_rubrics):
    write(user_rubrics / "essay.yaml", ESSAY)
    result = run("rubrics", "list")
    assert result.exit_code == 0, result.output
    for rubric_id in [*BUILT_IN_IDS, "essay"]:
        assert rubric_id in result.stdout
    assert "built-in" in result.stdout


def test_list_with_a_malformed_user_rubric_exits_2_naming_it(user_rubrics):
    broken = write(user_rubrics / "broken.yaml", {**ESSAY, "id": "Not An Id"})
    result = run("rubrics", "list")
    assert result.exit_code == 2
    assert str(broken) in result.stderr
    assert "id:" in result.stderr


# --- show -----------------------------------------------------------------------------------


def test_show_prints_weights_flags_thresholds_anchors_and_example_counts():
    result = run("rubrics", "show", "code")
    assert result.exit_code == 0, result.output
    out = " ".join(result.stdout.split())  # the text wraps to the terminal
    assert out.startswith("code: Code quality")
    assert "correctness weight 2, threshold 4, essential (minimum 4), 0 examples" in out
    assert "readability weight 1, threshold 3, 2 examples" in out
    assert "tests weight 0.5" in out
    rubric = jurist.rubrics.get_rubric("code")
    for criterion in rubric.criteria:
        for level, anchor in criterion.anchors.items():
            assert f"{level} {anchor}" in out


def test_show_json_is_the_rubric_model():
    result = run("rubrics", "show", "summarization", "--json")
    assert result.exit_code == 0, result.output
    shown = Rubric.model_validate_json(result.stdout)
    assert shown == jurist.rubrics.get_rubric("summarization")


def test_show_accepts_a_rubric_file(tmp_path):
    path = write(tmp_path / "whatever.yaml", ESSAY)
    result = run("rubrics", "show", str(path), "--json")
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["id"] == "essay"


def test_show_an_unknown_id_exits_2_listing_the_known_ones():
    result = run("rubrics", "show", "nope")
    assert result.exit_code == 2
    assert result.stdout == ""
    assert "'nope'" in result.stderr
    for rubric_id in BUILT_IN_IDS:
        assert rubric_id in result.stderr


def test_show_keeps_square_brackets_in_rubric_text(user_rubrics):
    # Rich markup would eat "[bold]"-like text; the rubric's words must come out as written.
    data = {**ESSAY, "description": "Grades [bold] claims [/] and [link=x]."}
    write(user_rubrics / "essay.yaml", data)
    result = run("rubrics", "show", "essay")
    assert result.exit_code == 0, result.output
    assert "Grades [bold] claims [/] and [link=x]." in result.stdout


# --- check ----------------------------------------------------------------------------------


def test_check_a_valid_file():
    result = run("rubrics", "check", str(LIBRARY / "user-story.yaml"))
    assert result.exit_code == 0, result.output
    assert result.stdout == "ok: user-story (3 criteria)\n"
    assert result.stderr == ""


def test_check_notes_a_file_name_that_differs_from_the_id(tmp_path):
    result = run("rubrics", "check", str(write(tmp_path / "my-essay.yaml", ESSAY)))
    assert result.exit_code == 0, result.output
    assert result.stdout == "ok: essay (1 criterion)\n"
    assert "'my-essay'" in result.stderr


@pytest.mark.parametrize(
    ("content", "expected"),
    [
        (
            yaml.safe_dump(
                {**ESSAY, "criteria": [{**ESSAY["criteria"][0], "anchors": {1: "a", 2: "b"}}]}
            ),
            "criteria[0] (coherence).anchors: Value error, needs an anchor for each score 1..5; "
            "missing [3, 4, 5]",
        ),
        (
            yaml.safe_dump({**ESSAY, "criteria": [{**ESSAY["criteria"][0], "weight": 0}]}),
            "criteria[0] (coherence).weight: Input should be greater than 0",
        ),
        ("id: essay\ncriteria: [oops\n", "not valid YAML at line"),
        ("- just\n- a list\n", "a rubric must be a mapping, not list"),
    ],
    ids=["missing anchors", "weight 0", "not yaml", "not a mapping"],
)
def test_check_a_bad_file_exits_2_naming_file_field_and_problem(tmp_path, content, expected):
    path = tmp_path / "essay.yaml"
    path.write_text(content)
    result = run("rubrics", "check", str(path))
    assert result.exit_code == 2
    assert result.stdout == ""
    assert result.stderr.startswith(f"error: {path}: ")
    assert expected in result.stderr


def test_check_a_missing_file_exits_2(tmp_path):
    result = run("rubrics", "check", str(tmp_path / "nowhere.yaml"))
    assert result.exit_code == 2
    assert "cannot be read" in result.stderr


def test_rubrics_without_a_subcommand_shows_help():
    result = run("rubrics")
    assert "list" in result.output
    assert "show" in result.output
    assert "check" in result.output
