"""The embedded model says when it loads its weights: the seconds a first command waits."""

from pathlib import Path

import pytest

from jurist.core import Step, reporting
from jurist.llm import EmbeddedModel


class _LoadedRuntime:
    load_seconds = 0.0


async def test_loading_the_weights_is_reported_once(monkeypatch: pytest.MonkeyPatch, tmp_path):
    loaded: list[Path] = []

    def runtime(path: Path, options: object) -> _LoadedRuntime:
        loaded.append(path)
        return _LoadedRuntime()

    monkeypatch.setattr("jurist.llm._embedded._runtime", runtime)
    model = EmbeddedModel("local:tiny", tmp_path / "tiny.gguf")
    steps: list[Step] = []
    with reporting(steps.append):
        await model.load()
        await model.load()
    assert [str(step) for step in steps] == ["loading model local:tiny", "model local:tiny loaded"]
    assert loaded == [tmp_path / "tiny.gguf"]
