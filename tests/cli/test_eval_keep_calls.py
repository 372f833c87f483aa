"""`jurist eval --keep-calls`: each item's prompts and raw answers stored with its verdict,
a resumed run keeping the choice it was started with, `jurist runs show/export` unchanged."""

import asyncio
import csv
import io
import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from jurist.cli import app
from jurist.data import load_dataset
from jurist.runner import evaluate, resolve_judge
from jurist.store import RecordStore, StoredJudgment
from jurist.testing import FakeModel

runner = CliRunner()
YES = {"answer": "yes", "reason": "It gives a window."}
NO = {"answer": "no", "reason": "It gives none."}


@pytest.fixture
def fake_model(monkeypatch) -> FakeModel:
    """Every model the command asks for is one FakeModel: "yes" unless the row says "never"."""
    model = FakeModel(lambda prompt: NO if "never" in prompt else YES)
    monkeypatch.setattr("jurist.judges._ask.get_model", lambda spec=None: model)
    return model


@pytest.fixture
def database(tmp_path) -> str:
    return f"sqlite:///{tmp_path / 'runs.sqlite3'}"


@pytest.fixture
def panel(tmp_path) -> Path:
    spec = {
        "type": "jury",
        "name": "panel",
        "strategy": {"type": "majority"},
        "judges": [
            {"type": "criterion", "name": "window", "criterion": "It states a refund window."},
            {"type": "criterion", "name": "polite", "criterion": "It is polite."},
        ],
    }
    path = tmp_path / "panel.json"
    path.write_text(json.dumps(spec))
    return path


def answers(path: Path, n: int) -> Path:
    lines = [
        json.dumps({"id": f"q{i}", "question": "Refunds?", "answer": f"Within {i} days."})
        for i in range(1, n)
    ]
    lines.append(json.dumps({"id": f"q{n}", "question": "Refunds?", "answer": "never"}))
    path.write_text("\n".join(lines) + "\n")
    return path


def stored(database: str, run: str) -> dict[str, StoredJudgment]:
    async def read() -> dict[str, StoredJudgment]:
        async with await RecordStore.open(database) as store:
            found = await store.get_run(run)
            assert found is not None
            return {f"{s.item_id} {s.judge}": s for s in await store.run_judgments(found.id)}

    return asyncio.run(read())


def test_keep_calls_stores_each_item_s_prompts_and_answers(tmp_path, fake_model, database, panel):
    data = answers(tmp_path / "answers.jsonl", 3)
    result = runner.invoke(
        app,
        [
            *("eval", str(data), "-j", str(panel)),
            "--keep-calls",
            "--name",
            "kept",
            "--database",
            database,
        ],
    )
    assert result.exit_code == 0, result.output
    records = stored(database, "kept")
    for item, output in (("q1", "Within 1 days."), ("q3", "never")):
        calls = records[f"{item} panel"].calls
        assert calls is not None
        assert sorted(call["judge"] for call in calls) == ["polite", "window"]
        assert all(output in call["messages"][-1]["content"] for call in calls)
        expected = NO if output == "never" else YES
        assert {call["answer"] for call in calls} == {json.dumps(expected)}
        assert records[f"{item} panel/window"].calls is None
    assert fake_model.calls == 6

    shown = runner.invoke(app, ["runs", "show", "kept", "--database", database, "--json"])
    assert shown.exit_code == 0, shown.output
    assert json.loads(shown.stdout)["spec"]["keep_calls"] is True


def test_without_the_flag_no_call_is_kept(tmp_path, fake_model, database, panel):
    data = answers(tmp_path / "answers.jsonl", 2)
    result = runner.invoke(
        app, ["eval", str(data), "-j", str(panel), "--name", "plain", "--database", database]
    )
    assert result.exit_code == 0, result.output
    assert {s.calls is None for s in stored(database, "plain").values()} == {True}
    shown = runner.invoke(app, ["runs", "show", "plain", "--database", database, "--json"])
    assert json.loads(shown.stdout)["spec"]["keep_calls"] is False


def test_runs_export_and_show_are_the_same_with_kept_calls(tmp_path, fake_model, database, panel):
    data = answers(tmp_path / "answers.jsonl", 3)
    for name, flags in (("kept", ["--keep-calls"]), ("plain", [])):
        command = ["eval", str(data), "-j", str(panel), "--name", name, *flags]
        assert runner.invoke(app, [*command, "--database", database]).exit_code == 0

    def export(name: str, kind: str) -> str:
        done = runner.invoke(app, ["runs", "export", name, "-f", kind, "--database", database])
        assert done.exit_code == 0, done.output
        return done.stdout

    def latency_free(line: str) -> dict[str, object]:
        row = json.loads(line)
        row["judgment"]["usage"].pop("latency_ms", None)
        return row

    kept, plain = export("kept", "jsonl").splitlines(), export("plain", "jsonl").splitlines()
    assert len(kept) == 3
    assert "messages" not in export("kept", "jsonl")
    assert [latency_free(line) for line in kept] == [latency_free(line) for line in plain]
    # the vote columns come in the order the votes were stored: compare by column
    assert table(export("kept", "csv")) == table(export("plain", "csv"))

    def summary(name: str) -> dict[str, object]:
        shown = runner.invoke(app, ["runs", "show", name, "--database", database, "--json"])
        payload = json.loads(shown.stdout)["summary"]
        return {key: payload[key] for key in ("n", "counts", "input_tokens", "output_tokens")}

    assert summary("kept") == summary("plain")


def table(text: str) -> list[dict[str, str]]:
    return list(csv.DictReader(io.StringIO(text)))


def interrupted_run(data: Path, spec: Path, database: str, *, keep_calls: bool, k: int) -> int:
    """A run `nightly` of the file, started from the library and cancelled once k items are
    stored; returns how many it stored."""

    class CancelAt:
        def __init__(self) -> None:
            self.seen, self.task = 0, asyncio.current_task()

        def start(self, *, total: int, done: int, run: str | None) -> None:
            pass

        def advance(self, item_id: str, judgment: object) -> None:
            self.seen += 1
            if self.seen == k and self.task is not None:
                self.task.cancel()

        def finish(self) -> None:
            pass

    async def run() -> int:
        async with await RecordStore.open(database) as store:
            with pytest.raises(asyncio.CancelledError):
                await evaluate(
                    load_dataset(data),
                    resolve_judge(str(spec)),
                    store=store,
                    name="nightly",
                    progress=CancelAt(),
                    concurrency=1,
                    keep_calls=keep_calls,
                )
            task = asyncio.current_task()
            assert task is not None
            task.uncancel()
            found = await store.get_run("nightly")
            assert found is not None
            return len(await store.run_judgments(found.id))

    return asyncio.run(run())


def test_a_run_started_with_keep_calls_resumes_keeping_them(tmp_path, fake_model, database, panel):
    n = 6
    data = answers(tmp_path / "answers.jsonl", n)
    before = interrupted_run(data, panel, database, keep_calls=True, k=2)
    assert before < n * 3  # the verdict and two votes an item

    result = runner.invoke(
        app, ["eval", str(data), "-j", str(panel), "--resume", "nightly", "--database", database]
    )
    assert result.exit_code == 0, result.output
    records = stored(database, "nightly")
    verdicts = {key: s for key, s in records.items() if key.endswith(" panel")}
    assert len(verdicts) == n
    for record in verdicts.values():
        assert record.calls is not None
        assert len(record.calls) == 2


def test_resuming_with_keep_calls_a_run_started_without_exits_2(
    tmp_path, fake_model, database, panel
):
    data = answers(tmp_path / "answers.jsonl", 4)
    interrupted_run(data, panel, database, keep_calls=False, k=1)
    result = runner.invoke(
        app,
        [
            "eval",
            str(data),
            "-j",
            str(panel),
            "--resume",
            "nightly",
            "--keep-calls",
            "--database",
            database,
        ],
    )
    assert result.exit_code == 2
    said = " ".join(result.stderr.split())
    assert "--resume: run 'nightly' does not keep its calls" in said
    assert "a resumed run keeps the choice it was started with" in said


def test_the_help_says_what_keep_calls_keeps_and_why_it_is_off():
    shown = runner.invoke(app, ["eval", "--help"], env={"COLUMNS": "200", "NO_COLOR": "1"})
    assert shown.exit_code == 0
    text = " ".join(shown.stdout.split())
    assert "--keep-calls" in text
    assert "prompts hold your rows' content" in text
    assert "A resumed run keeps the choice it was started with." in text
