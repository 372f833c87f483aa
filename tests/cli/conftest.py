"""A scripted model in place of the real one, and rubric files, for the model-backed commands."""

from pathlib import Path

import pytest
import yaml

from scripted import LOGPROB_CAPABILITIES, ScriptedModel


@pytest.fixture
def use_model(monkeypatch):
    """Every model a command asks for is one scripted model; `install(*script)` returns it,
    with `.specs` listing the specs the command asked for."""

    def install(*script) -> ScriptedModel:
        model = ScriptedModel("test:judge", script, capabilities=LOGPROB_CAPABILITIES)
        model.specs = []  # type: ignore[attr-defined]

        def get_model(spec=None):
            model.specs.append(spec)  # type: ignore[attr-defined]
            return model

        monkeypatch.setattr("jurist.judges._ask.get_model", get_model)
        return model

    return install


@pytest.fixture
def rubric_file(tmp_path):
    """`write(*criteria)` writes a rubric file `house-style.yaml` (id house-style) with those
    criteria, each described as "The output is NAME.", and returns its path."""

    def write(*criteria: str) -> Path:
        rubric = {
            "id": "house-style",
            "name": "House style",
            "criteria": [
                {
                    "name": name,
                    "description": f"The output is {name}.",
                    "anchors": {level: f"level {level}" for level in range(1, 6)},
                }
                for name in criteria
            ],
        }
        path = tmp_path / "house-style.yaml"
        path.write_text(yaml.safe_dump(rubric), "utf-8")
        return path

    return write
