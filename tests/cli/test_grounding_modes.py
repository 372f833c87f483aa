"""`jurist grounding` asks about the claims the way the judge would by default (one call for a
provider, one per claim for the embedded model) unless --together or --per-claim says."""

import json
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

sys.path.insert(0, str(Path(__file__).parents[1] / "judges"))
from grounding_script import claim_of, claims_answer, verdict_answer, verdicts_answer

from jurist.cli import app
from jurist.llm import Capabilities, Request, Response
from scripted import LOGPROB_CAPABILITIES, ScriptedModel

runner = CliRunner()
CLAIMS = ["The garden has red roses.", "A stone wall surrounds the orchard."]
TEXT = " ".join(CLAIMS)
HOSTED = Capabilities(logprobs=True, max_top_logprobs=20, json_schema=True, seed=True)


def answer_all(request: Request) -> Response:
    properties = (request.json_schema or {}).get("properties", {})
    if "claims" in properties:
        return claims_answer(*CLAIMS)
    if "verdicts" in properties:
        return verdicts_answer(*[(n, 0.9, claim) for n, claim in enumerate(CLAIMS, 1)])
    return verdict_answer(0.9, claim_of(request))


@pytest.fixture
def files(tmp_path: Path) -> dict[str, Path]:
    (tmp_path / "source.txt").write_text(TEXT, "utf-8")
    (tmp_path / "answer.txt").write_text(TEXT, "utf-8")
    return {"source": tmp_path / "source.txt", "answer": tmp_path / "answer.txt"}


def install(monkeypatch, capabilities: Capabilities) -> ScriptedModel:
    model = ScriptedModel("test:judge", [answer_all] * 10, capabilities=capabilities)
    monkeypatch.setattr("jurist.judges._ask.get_model", lambda spec=None: model)
    return model


@pytest.mark.parametrize(
    ("capabilities", "flags", "mode", "calls"),
    [
        (HOSTED, [], "together", 2),
        (LOGPROB_CAPABILITIES, [], "per_claim", 3),
        (HOSTED, ["--per-claim"], "per_claim", 3),
        (LOGPROB_CAPABILITIES, ["--together"], "together", 2),
    ],
)
def test_grounding_asks_as_the_model_or_the_flag_says(
    monkeypatch, files, *, capabilities, flags, mode, calls
):
    model = install(monkeypatch, capabilities)
    result = runner.invoke(
        app,
        ["grounding", str(files["answer"]), "--context", str(files["source"]), "--json", *flags],
    )
    assert result.exit_code == 0, result.output
    judgment = json.loads(result.stdout)
    assert judgment["metadata"]["mode"] == mode
    assert judgment["metadata"]["supported_claims"] == 2
    assert model.calls == calls
