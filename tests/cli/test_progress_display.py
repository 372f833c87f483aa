"""What a model-backed command shows while it works: on standard error, at a terminal only.

Rich decides what a terminal is, and TTY_COMPATIBLE=1 makes the runner's captured standard
error one, as a user's terminal would be."""

import json
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

sys.path.insert(0, str(Path(__file__).parents[1] / "judges"))
from grounding_script import claims_answer, router, verdict_answer

from jurist.cli import app
from jurist.core import report
from jurist.llm import Request
from scripted import ScriptedModel
from service_script import ServiceScript, scripted_model

runner = CliRunner()
SOURCE = "The Eiffel Tower was completed in 1889. It is 330 metres tall."
TRUE = "The Eiffel Tower was completed in 1889."
TALL = "The Eiffel Tower is 330 metres tall."
TERMINAL = {"TTY_COMPATIBLE": "1", "TERM": "xterm-256color", "COLUMNS": "200"}
PIPE = {"TTY_COMPATIBLE": "0", "COLUMNS": "200"}


def loading_first(model: ScriptedModel) -> ScriptedModel:
    """The model says it is loading on its first call, as the embedded model does."""
    inner = model.complete
    loaded = False

    async def complete(request: Request):
        nonlocal loaded
        if not loaded:
            loaded = True
            report("loading model test:judge")
        return await inner(request)

    model.complete = complete  # type: ignore[method-assign]
    return model


def in_order(text: str, *parts: str) -> None:
    """Each part appears in `text`, and each first appears after the one before it."""
    at = -1
    for part in parts:
        found = text.find(part)
        assert found >= 0, f"{part!r} is not in {text!r}"
        assert found > at, f"{part!r} came before {parts[parts.index(part) - 1]!r}"
        at = found


@pytest.fixture
def grounding_files(tmp_path: Path) -> list[str]:
    (tmp_path / "source.txt").write_text(SOURCE, "utf-8")
    (tmp_path / "answer.txt").write_text(f"{TRUE} {TALL}", "utf-8")
    return [str(tmp_path / "answer.txt"), "--context", str(tmp_path / "source.txt")]


def grounding_script():
    return router(
        claims_answer(TRUE, TALL),
        {TRUE: verdict_answer(0.95, TRUE), TALL: verdict_answer(0.9, "It is 330 metres tall.")},
    )


def test_grounding_shows_loading_extraction_and_each_claim_at_a_terminal(
    use_model, grounding_files
):
    loading_first(use_model(*[grounding_script()] * 3))
    result = runner.invoke(app, ["grounding", *grounding_files], env=TERMINAL)
    assert result.exit_code == 0, result.output
    # The spinner starts on what the command does; it is drawn once something happens.
    assert "checking the claims of" in result.stderr
    in_order(
        result.stderr,
        "extracting claims",  # the extraction's call is what loads the model
        "loading model test:judge",
        "claim 1 of 2 done",
        "claim 2 of 2 done",
    )
    assert "claim 1 of 2" not in result.stdout  # the verdict alone goes to standard output


@pytest.mark.parametrize(
    ("flags", "env"), [([], PIPE), (["--json"], TERMINAL)], ids=["piped", "json"]
)
def test_grounding_shows_nothing_piped_or_with_json(use_model, grounding_files, flags, env):
    loading_first(use_model(*[grounding_script()] * 3))
    result = runner.invoke(app, ["grounding", *grounding_files, *flags], env=env)
    assert result.exit_code == 0, result.output
    assert result.stderr == ""
    if flags:
        assert json.loads(result.stdout)["status"] == "pass"


def test_criteria_counts_each_criterion(use_model, tmp_path):
    output = tmp_path / "answer.txt"
    output.write_text("You can return any item within 30 days for a full refund.", "utf-8")
    script = ServiceScript(criteria={"Mentions 30 days": 0.9, "Is polite": 0.8})
    use_model(*[script] * 2)
    args = ["criteria", str(output), "-c", "Mentions 30 days", "-c", "Is polite"]
    result = runner.invoke(app, args, env=TERMINAL)
    assert result.exit_code == 0, result.output
    assert "on 2 criteria" in result.stderr
    in_order(result.stderr, "criterion 1 of 2 done", "criterion 2 of 2 done")


def test_validate_shows_its_layers_one_by_one(tmp_path, monkeypatch):
    script = ServiceScript(
        criteria={"Mentions the year": 0.9},
        claims=[TRUE],
        support={TRUE: (0.95, TRUE)},
    )
    model = loading_first(scripted_model(script))
    monkeypatch.setattr("jurist.validation._pipeline.get_model", lambda *a, **k: model)
    body = {
        "output": TRUE,
        "context": {"source": SOURCE},
        "validation_types": ["schema", "criteria", "hallucination"],
        "expected_schema": {"type": "string"},
        "acceptance_criteria": ["Mentions the year"],
    }
    request = tmp_path / "request.json"
    request.write_text(json.dumps(body), "utf-8")
    result = runner.invoke(app, ["validate", str(request)], env=TERMINAL)
    assert result.exit_code == 0, result.output
    err = result.stderr
    assert "validating" in err
    in_order(err, "layers: schema, criteria, hallucination", "layer 1 of 3 done")
    in_order(err, "loading model test:judge", "layer 3 of 3 done")
    for layer in ("schema", "criteria", "hallucination"):
        assert f"done: {layer}" in err
    assert "claim 1 of 1 done" in err

    quiet = runner.invoke(app, ["validate", str(request), "--json"], env=TERMINAL)
    assert quiet.exit_code == 0, quiet.output
    assert quiet.stderr == ""


def test_eval_draws_its_bar_at_a_terminal_and_nothing_with_json(tmp_path):
    rows = [{"id": f"q{i}", "question": "Refunds?", "answer": "A refund."} for i in (1, 2)]
    data = tmp_path / "rows.jsonl"
    data.write_text("".join(json.dumps(row) + "\n" for row in rows), "utf-8")
    spec = tmp_path / "refund.yaml"
    spec.write_text("type: contains\nname: refund\nkeywords: [refund]\n", "utf-8")
    database = f"sqlite:///{tmp_path / 'runs.sqlite3'}"
    args = ["eval", str(data), "--judge", str(spec), "--database", database]
    shown = runner.invoke(app, [*args, "--name", "shown"], env=TERMINAL)
    assert shown.exit_code == 0, shown.output
    assert "2/2" in shown.stderr
    quiet = runner.invoke(app, [*args, "--name", "quiet", "--json"], env=TERMINAL)
    assert quiet.exit_code == 0, quiet.output
    assert quiet.stderr == ""
