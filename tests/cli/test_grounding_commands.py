"""`jurist grounding`, `jurist facts` and `jurist kb` as a user runs them, with a scripted
model in place of the real one and a real SQLite knowledge base."""

import json
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

sys.path.insert(0, str(Path(__file__).parents[1] / "judges"))
from grounding_script import claims_answer, router, verdict_answer

from jurist.cli import app

runner = CliRunner()
SOURCE = "The Eiffel Tower was completed in 1889. It is 330 metres tall."
TRUE = "The Eiffel Tower was completed in 1889."
FALSE = "The Eiffel Tower is 500 metres tall."


def run(*args: str):
    return runner.invoke(app, list(args), env={"COLUMNS": "240"})


@pytest.fixture
def files(tmp_path: Path) -> dict[str, Path]:
    (tmp_path / "source.txt").write_text(SOURCE, "utf-8")
    (tmp_path / "answer.txt").write_text(f"{TRUE} {FALSE}", "utf-8")
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "tower.md").write_text(f"# The tower\n\n{SOURCE}", "utf-8")
    (docs / "bridge.txt").write_text("The Golden Gate Bridge opened in 1937.", "utf-8")
    return {
        "source": tmp_path / "source.txt",
        "answer": tmp_path / "answer.txt",
        "docs": docs,
        "db": tmp_path / "kb.sqlite3",
    }


def script(quote_false: str = ""):
    return router(
        claims_answer(TRUE, FALSE),
        {
            TRUE: verdict_answer(0.95, "The Eiffel Tower was completed in 1889."),
            FALSE: verdict_answer(0.05, quote_false, "contradicted"),
        },
    )


def test_grounding_lists_each_claim_and_exits_1_on_an_unsupported_one(use_model, files):
    use_model(*[script()] * 3)
    result = run("grounding", str(files["answer"]), "--context", str(files["source"]))
    assert result.exit_code == 1, result.output
    assert result.stdout.startswith("FAIL")
    assert "1 of 2 claims unsupported" in result.stdout
    assert "The Eiffel Tower was completed in 1889" in result.stdout
    assert "contradicted" in result.stdout


def test_grounding_json_carries_issues_and_counts(use_model, files):
    use_model(*[script()] * 3)
    result = run("grounding", str(files["answer"]), "-C", str(files["source"]), "--json")
    assert result.exit_code == 1, result.output
    judgment = json.loads(result.stdout)
    assert judgment["metadata"]["hallucination_count"] == 1
    assert judgment["metadata"]["total_claims"] == 2
    assert judgment["metadata"]["issues"][0]["type"] == "unsupported_claim"


def test_grounding_threshold_reaches_the_judge(use_model, files):
    # P(supported) 0.95 is over the default 0.5, and under a threshold of 0.99.
    use_model(*[script()] * 3)
    args = ["grounding", str(files["answer"]), "-C", str(files["source"])]
    result = run(*args, "--threshold", "0.99")
    assert result.exit_code == 1, result.output
    assert "2 of 2 claims unsupported" in result.stdout


@pytest.mark.parametrize(
    ("threshold", "message"),
    [("1.5", "Input should be less than 1"), ("0", "Input should be greater than 0")],
)
def test_grounding_threshold_outside_zero_one_names_its_flag(use_model, files, threshold, message):
    model = use_model()
    args = ["grounding", str(files["answer"]), "-C", str(files["source"])]
    result = run(*args, "--threshold", threshold)
    assert result.exit_code == 2
    assert f"--threshold: {message}" in result.stderr
    assert model.calls == 0


@pytest.mark.parametrize(
    ("args", "message"),
    [
        ([], "--context"),
        (["--context", "missing.txt"], "no such file"),
        (["--context", "SOURCE", "--threshold", "1.5"], "--threshold"),
        (["--context", "SOURCE", "--model", "nonsense"], "--model"),
    ],
)
def test_grounding_bad_input_exits_2_naming_the_option(use_model, files, args, message):
    model = use_model()
    args = [str(files["source"]) if a == "SOURCE" else a for a in args]
    result = run("grounding", str(files["answer"]), *args)
    assert result.exit_code == 2
    assert message in result.stderr
    assert model.calls == 0


def test_kb_add_list_search_and_facts_round_trip(use_model, files):
    db = f"sqlite:///{files['db']}"
    added = run("kb", "add", str(files["docs"]), "--collection", "landmarks", "--database", db)
    assert added.exit_code == 0, added.output
    assert "2 added" in added.stdout
    again = run("kb", "add", str(files["docs"]), "-c", "landmarks", "--database", db)
    assert "2 unchanged" in again.stdout

    listed = run("kb", "list", "--database", db, "--json")
    assert json.loads(listed.stdout) == [{"name": "landmarks", "documents": 2, "chunks": 2}]

    found = run(
        "kb", "search", "when was the tower completed", "--database", db, "--json", "--no-rerank"
    )
    assert found.exit_code == 0, found.output
    hits = json.loads(found.stdout)
    assert hits[0]["document"].startswith("tower")
    assert "1889" in hits[0]["text"]

    model = use_model(*[script()] * 3)
    checked = run(
        "facts", str(files["answer"]), "--collection", "landmarks", "--database", db, "--json"
    )
    assert checked.exit_code == 1, checked.output
    judgment = json.loads(checked.stdout)
    assert judgment["metadata"]["verified_claims"] == 1
    (issue,) = judgment["metadata"]["issues"]
    assert issue["type"] == "unverified_fact"
    assert issue["claim"] == FALSE
    assert issue["searched"]["sources"] == "landmarks"
    assert model.calls == 2  # the false claim's year is an exact mismatch: no model call
    # The claim was checked against the passages the knowledge base found for it.
    verification = model.requests[1].messages[-1].content
    assert "1889" in verification


def test_facts_with_an_unknown_collection_exits_2_naming_it(use_model, files):
    db = f"sqlite:///{files['db']}"
    run("kb", "add", str(files["docs"]), "--collection", "landmarks", "--database", db)
    model = use_model()
    result = run("facts", str(files["answer"]), "--collection", "nope", "--database", db)
    assert result.exit_code == 2
    assert "'nope'" in result.stderr
    assert "landmarks" in result.stderr
    assert model.calls == 0


def test_kb_add_of_a_bad_jsonl_line_exits_2_and_writes_nothing(files, tmp_path):
    db = f"sqlite:///{files['db']}"
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"text": "fine"}\n{"title": "no text"}\n', "utf-8")
    result = run("kb", "add", str(bad), "--collection", "broken", "--database", db)
    assert result.exit_code == 2
    assert "bad.jsonl:2" in result.stderr
    listed = run("kb", "list", "--database", db, "--json")
    assert json.loads(listed.stdout) == []


def test_kb_list_says_how_to_start_when_empty(files):
    result = run("kb", "list", "--database", f"sqlite:///{files['db']}")
    assert result.exit_code == 0
    assert "jurist kb add" in result.stdout
