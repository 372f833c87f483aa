"""`jurist calibrate` with a scripted model: a run stored and resumable, the report's
statistics against the human scores, the files it writes, and --compare."""

import json
import shlex

import pytest
from typer.testing import CliRunner

from jurist.cli import app
from service_script import ServiceScript

runner = CliRunner()


def rows(n: int = 12) -> list[dict]:
    """Coherence rated 1..5 over 4 documents; fluency the same for all (constant)."""
    out = []
    for i in range(n):
        human = 1 + (i % 5)
        out.append(
            {
                "id": f"s{i}",
                "doc_id": f"d{i % 4}",
                "source": f"Article {i % 4}.",
                "output": f"Summary number {i} scores {human}.",
                "human_scores": {"coherence": human, "fluency": 3},
                "scale": [1, 5],
            }
        )
    return out


def test_a_judge_that_agrees_passes_and_the_report_is_kept(tmp_path, use_model):
    dataset = tmp_path / "ratings.jsonl"
    dataset.write_text("\n".join(json.dumps(r) for r in rows()))

    # The scripted judge scores each summary as the humans did (it reads the digit).
    def step(request):
        prompt = request.messages[-1].content
        digit = int(prompt.split(" scores ", 1)[1][0])
        return ServiceScript(quality={"coherence": digit})(request)

    model = use_model(*[step] * 100)
    database = f"sqlite:///{tmp_path / 'store.sqlite3'}"
    out = tmp_path / "report"
    result = runner.invoke(
        app,
        [
            "calibrate",
            str(dataset),
            "--rubric",
            "summarization",
            "--dimension",
            "coherence",
            "--database",
            database,
            "--name",
            "first",
            "--out",
            str(out),
            "--json",
        ],
    )
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    pooled = report["dimensions"]["coherence"]["correlations"]["pooled"]
    assert pooled["pearson"]["value"] > 0.99
    assert report["verdict"] == "PASS"
    assert report["latency"]["n"] == 12
    assert len(model.requests) == 12  # one criterion, one call per item
    assert (out / "report.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert "coherence" in (out / "report.md").read_text()

    # The same run again, named apart: --compare reads both reports from the store.
    runner.invoke(
        app,
        [
            "calibrate",
            str(dataset),
            "--rubric",
            "summarization",
            "-d",
            "coherence",
            "--database",
            database,
            "--name",
            "second",
        ],
    )
    compared = runner.invoke(
        app, ["calibrate", "--compare", "first", "second", "--database", database]
    )
    assert compared.exit_code == 0, compared.output
    assert "coherence" in compared.stdout


def test_bad_inputs_exit_2_naming_them(tmp_path):
    dataset = tmp_path / "ratings.jsonl"
    dataset.write_text("\n".join(json.dumps(r) for r in rows()))
    cases = [
        (["calibrate", str(dataset)], "--rubric"),
        (["calibrate", str(dataset), "--rubric", "summarization", "-d", "tone"], "tone"),
        (["calibrate", str(tmp_path / "missing.jsonl"), "--rubric", "summarization"], "missing"),
        (["calibrate", str(dataset), "--rubric", "summarization", "--method", "vibes"], "--method"),
        (
            # The claims method scores consistency, which rows() lacks.
            ["calibrate", str(dataset), "--rubric", "summarization", "--method", "claims"],
            "none of which the dataset rates",
        ),
        (
            ["calibrate", "--compare", "a", "b", "--database", f"sqlite:///{tmp_path}/x.db"],
            "no run",
        ),
    ]
    for args, named in cases:
        result = runner.invoke(app, args)
        assert result.exit_code == 2, (args, result.output)
        assert named in result.stderr


def test_align_reports_out_of_fold_only_and_saves_the_mapping(tmp_path, use_model, monkeypatch):
    monkeypatch.setenv("JURIST_HOME", str(tmp_path / "home"))
    from jurist.settings import get_settings

    get_settings.cache_clear()
    dataset = tmp_path / "ratings.jsonl"
    dataset.write_text("\n".join(json.dumps(r) for r in rows(20)))

    def step(request):
        prompt = request.messages[-1].content
        digit = int(prompt.split(" scores ", 1)[1][0])
        return ServiceScript(quality={"coherence": digit})(request)

    use_model(*[step] * 100)
    result = runner.invoke(
        app,
        [
            "align",
            str(dataset),
            "--rubric",
            "summarization",
            "-d",
            "coherence",
            "--folds",
            "4",
            # The script answers the plain rubric's questions.
            "--plain",
            "--database",
            f"sqlite:///{tmp_path / 'store.sqlite3'}",
        ],
    )
    get_settings.cache_clear()
    assert result.exit_code == 0, result.output
    assert "out of fold pearson" in result.stdout
    saved = tmp_path / "home" / "alignments" / "summarization.coherence.json"
    fitted = json.loads(saved.read_text())
    assert fitted["n"] == 20
    assert fitted["methods"] == "plain"
    assert fitted["alignment"]["method"] == "isotonic"
    assert len(fitted["alignment"]["validation"]["out_of_fold"]) == 20

    # Later calibrations on other data report the aligned scores too; on the data the
    # alignment was fitted on, they do not (that would be in-sample).
    monkeypatch.setenv("JURIST_HOME", str(tmp_path / "home"))
    get_settings.cache_clear()
    other = tmp_path / "other.jsonl"
    other.write_text("\n".join(json.dumps(r) for r in rows(16)))
    base = ["--rubric", "summarization", "-d", "coherence", "--method", "plain"]
    database = ["--database", f"sqlite:///{tmp_path / 'store2.sqlite3'}"]
    later = runner.invoke(app, ["calibrate", str(other), *base, *database])
    same = runner.invoke(app, ["calibrate", str(dataset), *base, *database])
    get_settings.cache_clear()
    assert later.exit_code in (0, 1), later.output
    assert "aligned (coherence)" in later.stdout
    assert "aligned (coherence)" not in same.stdout


def test_ctrl_c_exits_130_saying_which_run_to_resume(tmp_path, monkeypatch):
    dataset = tmp_path / "ratings.jsonl"
    dataset.write_text("\n".join(json.dumps(r) for r in rows()))

    async def interrupted(found, rubric, *, progress, **options):
        progress.start(total=len(found.items), done=0, run="nightly")
        progress.finish()
        raise KeyboardInterrupt

    monkeypatch.setattr("jurist.calibration.calibrate", interrupted)
    database = f"sqlite:///{tmp_path / 'store.sqlite3'}"
    for command in (["calibrate"], ["align", "--dimension", "coherence"]):
        result = runner.invoke(
            app, [*command, str(dataset), "--rubric", "summarization", "--database", database]
        )
        assert result.exit_code == 130, result.output
        said = " ".join(result.stderr.split())
        # The whole command, shell-quoted so that it pastes: every option given, then --resume.
        printed = shlex.split(said.split("resume with ", 1)[1])
        typed = [*command, str(dataset), "--rubric", "summarization", "--database", database]
        assert printed[:2] == ["jurist", command[0]]
        assert printed[-2:] == ["--resume", "nightly"]
        assert sorted(printed[1:-2]) == sorted(typed)
        assert "Traceback" not in result.output


def test_eval_with_a_rubric_applies_its_saved_alignment(tmp_path, use_model, monkeypatch):
    from jurist import Judgment
    from jurist.calibration import Alignment, FittedAlignment
    from jurist.judges import RubricResult
    from jurist.settings import get_settings

    data = tmp_path / "summaries.jsonl"
    data.write_text(
        "\n".join(
            json.dumps({"id": f"s{i}", "output": f"Summary {i}.", "context": "An article."})
            for i in range(3)
        )
    )
    use_model(*[ServiceScript(quality={"coherence": 4}, lenient=True)] * 100)
    database = ["--database", f"sqlite:///{tmp_path / 'store.sqlite3'}"]

    def run(home: str, out: str) -> list[dict]:
        monkeypatch.setenv("JURIST_HOME", str(tmp_path / home))
        get_settings.cache_clear()
        try:
            result = runner.invoke(
                app,
                ["eval", str(data), "--judge", "rubric:summarization", "--out", out, *database],
            )
        finally:
            get_settings.cache_clear()
        assert result.exit_code in (0, 1), result.output
        return [json.loads(line) for line in (tmp_path / out).read_text().splitlines()]

    plain = run("plain-home", str(tmp_path / "plain.jsonl"))
    assert all("aligned_coherence" not in row for row in plain)

    saved = tmp_path / "aligned-home" / "alignments" / "summarization.coherence.json"
    saved.parent.mkdir(parents=True)
    linear = Alignment(
        method="linear",
        signals=["coherence.expected"],
        intercept=0.5,
        coefficients={"coherence.expected": 2.0},
    )
    fitted = FittedAlignment(
        rubric="summarization",
        dimension="coherence",
        model="test",
        dataset_sha256="0" * 64,
        n=10,
        alignment=linear,
        methods="rubric",
    )
    # Fitted on the plain rubric, the alignment is not applied to the rubric scored by its
    # criteria's methods, which `eval` uses.
    saved.write_text(fitted.model_copy(update={"methods": "plain"}).model_dump_json())
    unmatched = run("aligned-home", str(tmp_path / "unmatched.jsonl"))
    assert all("aligned_coherence" not in row for row in unmatched)
    saved.write_text(fitted.model_dump_json())
    rows_ = run("aligned-home", str(tmp_path / "aligned.jsonl"))
    for row in rows_:
        result = RubricResult.from_judgment(Judgment.from_dict(row["judgment"]))
        expected = {c.criterion_name: c.expected_score for c in result.criteria_results}
        assert row["aligned_coherence"] == pytest.approx(0.5 + 2.0 * expected["coherence"])
        # The verdict and score stay the rubric's own.
        assert row["score"] == next(p["score"] for p in plain if p["item_id"] == row["item_id"])


@pytest.mark.parametrize("command", [["calibrate"], ["align", "--dimension", "coherence"]])
def test_the_shipped_ratings_are_named_summeval_100(tmp_path, monkeypatch, command):
    monkeypatch.chdir(tmp_path)  # no file of that name here: the name means the shipped set
    seen = {}

    async def counted(found, rubric, **options):
        seen["items"] = len(found.items)
        raise KeyboardInterrupt

    monkeypatch.setattr("jurist.calibration.calibrate", counted)
    database = f"sqlite:///{tmp_path / 'store.sqlite3'}"
    args = [*command, "summeval-100", "--rubric", "summarization", "--database", database]
    result = runner.invoke(app, [*args, "--limit", "8"])
    assert result.exit_code == 130, result.output
    assert seen == {"items": 8}
