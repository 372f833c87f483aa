"""Against a real HTTP endpoint on 127.0.0.1 that answers 429 with Retry-After beyond 8 calls
in flight (bench/simulated_model.py): `jurist eval` with its defaults finishes every item
without an error, never has more than the endpoint takes answered at once, and its summary
shows what the limit on calls in flight did."""

import importlib.util
import json
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from jurist.cli import app
from jurist.settings import get_settings

_PATH = Path(__file__).parents[2] / "bench" / "simulated_model.py"
_SPEC = importlib.util.spec_from_file_location("bench_simulated_model", _PATH)
assert _SPEC is not None
assert _SPEC.loader is not None
simulated = importlib.util.module_from_spec(_SPEC)
sys.modules[_SPEC.name] = simulated
_SPEC.loader.exec_module(simulated)

pytest.importorskip("openai")


@pytest.fixture
def limited_endpoint():  # type: ignore[no-untyped-def]
    with simulated.SimulatedModel(20, max_in_flight=8, retry_after_ms=50) as sim:
        yield sim


def test_eval_against_an_endpoint_that_takes_8_calls_shows_the_adapted_limit(
    tmp_path: Path, limited_endpoint, monkeypatch: pytest.MonkeyPatch
) -> None:
    data = tmp_path / "answers.jsonl"
    rows = [{"id": str(i), "question": f"Q{i}?", "answer": f"Thank you, {i}."} for i in range(150)]
    data.write_text("\n".join(json.dumps(row) for row in rows) + "\n")
    for name in ("JURIST_CONCURRENCY", "JURIST_MAX_CONCURRENCY", "JURIST_MODEL"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("JURIST_HOME", str(tmp_path / "home"))
    monkeypatch.setenv("JURIST_CACHE", "0")
    get_settings.cache_clear()
    try:
        result = CliRunner().invoke(
            app,
            [
                "eval",
                str(data),
                "--judge",
                "criterion:The answer is polite",
                "--model",
                limited_endpoint.spec,
                "--database",
                f"sqlite:///{tmp_path / 'runs.sqlite3'}",
            ],
        )
    finally:
        get_settings.cache_clear()
    assert result.exit_code == 0, result.output
    stats = limited_endpoint.stats()
    assert stats["answered"] == 150
    assert stats["refused"] > 0
    assert stats["max_in_flight"] == 8
    line = next(line for line in result.output.splitlines() if line.startswith("concurrency"))
    assert "adaptive: started at 32" in line
    assert f"{stats['refused']} rate-limited (429)" in line
    assert "ceiling 256" in line
    assert limited_endpoint.url in line
    assert "errors" in result.output
    assert "150: 150 pass" in result.output
