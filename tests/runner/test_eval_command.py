"""`jurist eval` and `jurist runs` as a user runs them, with a deterministic judge spec."""

import asyncio
import csv
import io
import json
from collections import Counter
from pathlib import Path

import pytest
import typer
from typer.testing import CliRunner

from jurist.cli._eval import eval_command
from jurist.cli._runs import runs_app
from jurist.data import load_dataset
from jurist.runner import evaluate, resolve_judge
from jurist.store import RecordStore

runner = CliRunner()


@pytest.fixture
def cli() -> typer.Typer:
    """The two commands as `jurist` registers them."""
    app = typer.Typer()
    app.command("eval")(eval_command)
    app.add_typer(runs_app, name="runs")
    return app


@pytest.fixture
def spec(tmp_path) -> Path:
    path = tmp_path / "refund.yaml"
    path.write_text("type: contains\nname: refund\nkeywords: [refund]\n")
    return path


def write_answers(path: Path, n: int, *, broken: int | None = None) -> Path:
    """n rows: odd ones mention a refund; row `broken` has no answer column."""
    lines = []
    for i in range(1, n + 1):
        row = {"id": f"q{i}", "question": f"Question {i}?"}
        if i != broken:
            row["answer"] = "A refund within 30 days." if i % 2 else "No idea."
        lines.append(json.dumps(row))
    path.write_text("\n".join(lines) + "\n")
    return path


def test_eval_prints_the_summary_and_stores_the_run(cli, tmp_path, spec, sqlite_url):
    data = write_answers(tmp_path / "answers.jsonl", 6)
    result = runner.invoke(
        cli,
        ["eval", str(data), "--judge", str(spec), "--name", "first", "--database", sqlite_url],
    )
    assert result.exit_code == 0, result.output
    out = " ".join(result.stdout.split())
    assert "run first (" in out
    assert "items 6: 3 pass, 3 fail, 0 abstain, 0 error" in out
    assert "pass rate 50.0% of decided" in out
    assert result.stderr == ""  # off a terminal the progress bar stays quiet

    shown = runner.invoke(cli, ["runs", "show", "first", "--database", sqlite_url, "--json"])
    assert shown.exit_code == 0, shown.output
    payload = json.loads(shown.stdout)
    assert (payload["status"], payload["kind"], payload["judge"]) == ("done", "eval", "refund")
    assert payload["summary"]["counts"] == {"pass": 3, "fail": 3, "abstain": 0, "error": 0}
    assert payload["spec"]["judge"]["definition"]["keywords"] == ["refund"]
    assert payload["spec"]["dataset"]["path"] == str(data.resolve())


def test_an_errored_item_exits_3_and_the_results_file_names_its_cause(
    cli, tmp_path, spec, sqlite_url
):
    data = write_answers(tmp_path / "answers.jsonl", 4, broken=2)
    out = tmp_path / "results.csv"
    result = runner.invoke(
        cli,
        [
            *("eval", str(data), "--judge", str(spec), "--database", sqlite_url),
            *("--out", str(out), "--json"),
        ],
    )
    assert result.exit_code == 3, result.output
    summary = json.loads(result.stdout)["summary"]
    assert summary["errors_by_cause"] == {"bad_input": 1}
    rows = {row["item_id"]: row for row in csv.DictReader(out.open())}
    assert list(rows) == ["q1", "q2", "q3", "q4"]
    assert rows["q2"]["cause"] == "bad_input"
    assert rows["q2"]["reasoning"] == "line 2: no column 'answer' (output)"


def test_map_chooses_the_columns(cli, tmp_path, spec, sqlite_url):
    data = tmp_path / "answers.csv"
    data.write_text("prompt,reply\nWhy?,refund now\nHow?,later\n")
    result = runner.invoke(
        cli,
        [
            *("eval", str(data), "--judge", str(spec), "--database", sqlite_url),
            *("--map", "goal=prompt", "--map", "output=reply", "--json"),
        ],
    )
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["summary"]["counts"]["pass"] == 1


@pytest.mark.parametrize(
    ("arguments", "named"),
    [
        (["--judge", "contains"], "--judge: judge 'contains' is none of the forms"),
        (["--judge", "SPEC", "--map", "answer"], "--map: 'answer' is not FIELD=COLUMN"),
        (["--judge", "SPEC", "--map", "output=reply"], "the dataset has no column 'reply'"),
        (["--judge", "SPEC", "--model", "nonsense"], "--model:"),
        (["--judge", "SPEC", "--out", "results.txt"], "--out:"),
        (["--judge", "SPEC", "--resume", "ghost"], "--resume: no run with id or name 'ghost'"),
        (["--judge", "SPEC", "--resume", "a", "--name", "b"], "--name: a resumed run keeps"),
    ],
)
def test_bad_input_exits_2_naming_the_option(cli, tmp_path, spec, *, sqlite_url, arguments, named):
    data = write_answers(tmp_path / "answers.jsonl", 2)
    arguments = [str(spec) if a == "SPEC" else a for a in arguments]
    result = runner.invoke(cli, ["eval", str(data), *arguments, "--database", sqlite_url])
    assert result.exit_code == 2, result.output
    assert named in " ".join(result.stderr.split())


def test_a_missing_dataset_exits_2(cli, tmp_path, spec, sqlite_url):
    result = runner.invoke(
        cli,
        ["eval", str(tmp_path / "nope.jsonl"), "--judge", str(spec), "--database", sqlite_url],
    )
    assert result.exit_code == 2
    assert "DATASET:" in result.stderr
    assert "cannot be read" in " ".join(result.stderr.split())


def test_a_name_that_is_taken_says_how_to_resume(cli, tmp_path, spec, sqlite_url):
    data = write_answers(tmp_path / "answers.jsonl", 2)
    command = ["eval", str(data), "--judge", str(spec), "--name", "n", "--database", sqlite_url]
    assert runner.invoke(cli, command).exit_code == 0
    again = runner.invoke(cli, command)
    assert again.exit_code == 2
    assert "--resume n" in " ".join(again.stderr.split())


def test_an_interrupted_run_resumes_from_the_command_line(cli, tmp_path, spec, sqlite_url):
    """Started from the library and cancelled once 5 items are stored, then finished by
    `jurist eval --resume`: every item stored once, none judged again."""
    n = 200
    data = write_answers(tmp_path / "answers.jsonl", n)

    class CancelAt:
        def __init__(self, k: int) -> None:
            self.k, self.seen, self.task = k, 0, None

        def start(self, *, total: int, done: int, run: str | None) -> None:
            pass

        def advance(self, item_id, judgment) -> None:
            self.seen += 1
            if self.seen == self.k:
                self.task.cancel()

        def finish(self) -> None:
            pass

    async def interrupted() -> int:
        async with await RecordStore.open(sqlite_url) as store:
            stop = CancelAt(5)
            stop.task = asyncio.current_task()
            choice = resolve_judge(str(spec))
            with pytest.raises(asyncio.CancelledError):
                await evaluate(
                    load_dataset(data),
                    choice,
                    store=store,
                    name="big",
                    progress=stop,
                    concurrency=2,
                )
            asyncio.current_task().uncancel()
            run = await store.get_run("big")
            assert run is not None
            assert run.status == "interrupted"
            return len(await store.run_judgments(run.id))

    stored_before = asyncio.run(interrupted())
    assert 5 <= stored_before < n

    result = runner.invoke(
        cli,
        [
            "eval",
            str(data),
            "--judge",
            str(spec),
            "--resume",
            "big",
            "--database",
            sqlite_url,
            "--json",
        ],
    )
    assert result.exit_code == 0, result.output
    summary = json.loads(result.stdout)["summary"]
    assert (summary["resumed"], summary["judged"], summary["n"]) == (
        stored_before,
        n - stored_before,
        n,
    )

    async def stored_items() -> Counter[str | None]:
        async with await RecordStore.open(sqlite_url) as store:
            run = await store.get_run("big")
            assert run is not None
            assert run.status == "done"
            return Counter(s.item_id for s in await store.run_judgments(run.id))

    assert asyncio.run(stored_items()) == Counter(f"q{i}" for i in range(1, n + 1))


def test_runs_list_and_export(cli, tmp_path, spec, sqlite_url):
    data = write_answers(tmp_path / "answers.jsonl", 3)
    for name in ("a", "b"):
        base = ["eval", str(data), "--judge", str(spec), "--name", name]
        assert runner.invoke(cli, [*base, "--database", sqlite_url]).exit_code == 0

    listed = runner.invoke(cli, ["runs", "list", "--database", sqlite_url, "--json"])
    assert listed.exit_code == 0, listed.output
    runs = json.loads(listed.stdout)
    assert [(r["name"], r["status"], r["items"]) for r in runs] == [
        ("b", "done", 3),
        ("a", "done", 3),
    ]
    table = runner.invoke(cli, ["runs", "list", "--database", sqlite_url])
    assert "pass rate" in table.stdout

    exported = runner.invoke(
        cli, ["runs", "export", "a", "--format", "jsonl", "--database", sqlite_url]
    )
    assert exported.exit_code == 0, exported.output
    lines = [json.loads(line) for line in exported.stdout.splitlines()]
    assert [(line["item_id"], line["status"]) for line in lines] == [
        ("q1", "pass"),
        ("q2", "fail"),
        ("q3", "pass"),
    ]
    assert lines[0]["judgment"]["metadata"]["found"] == ["refund"]

    out = tmp_path / "a.csv"
    to_file = runner.invoke(
        cli, ["runs", "export", "a", "--format", "csv", "--out", str(out), "--database", sqlite_url]
    )
    assert to_file.exit_code == 0, to_file.output
    assert [row["status"] for row in csv.DictReader(io.StringIO(out.read_text()))] == [
        "pass",
        "fail",
        "pass",
    ]


def test_runs_of_an_unknown_run_exit_2(cli, sqlite_url):
    for command in (["show", "ghost"], ["export", "ghost", "--format", "csv"]):
        result = runner.invoke(cli, ["runs", *command, "--database", sqlite_url])
        assert result.exit_code == 2
        assert "no run with id or name 'ghost'" in result.stderr
    bad = runner.invoke(cli, ["runs", "export", "x", "--format", "xml", "--database", sqlite_url])
    assert bad.exit_code == 2


def test_ctrl_c_exits_130_saying_which_run_to_resume(cli, tmp_path, spec, sqlite_url, monkeypatch):
    async def interrupted(dataset, judge, *, progress, **options):
        progress.start(total=2, done=0, run="3f" * 16)
        progress.finish()
        raise KeyboardInterrupt

    monkeypatch.setattr("jurist.cli._eval.evaluate", interrupted)
    data = write_answers(tmp_path / "answers.jsonl", 2)
    result = runner.invoke(cli, ["eval", str(data), "--judge", str(spec), "--database", sqlite_url])
    assert result.exit_code == 130
    assert f"--resume {'3f' * 16}" in " ".join(result.stderr.split())
