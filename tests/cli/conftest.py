"""A scripted model in place of the real one, for the model-backed commands."""

import pytest

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
