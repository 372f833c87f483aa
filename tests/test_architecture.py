"""The source tree keeps one way to ask a model: only the model layer and `ask` call
`.complete(` on a model."""

import re
from pathlib import Path

SOURCE = Path(__file__).resolve().parents[1] / "src" / "jurist"
ALLOWED = {"jurist/judges/_ask.py"}
CALL = re.compile(r"\.complete\(")


def _callers() -> set[str]:
    found = set()
    for path in SOURCE.rglob("*.py"):
        relative = path.relative_to(SOURCE.parent).as_posix()
        if relative.startswith("jurist/llm/"):
            continue
        if CALL.search(path.read_text("utf-8")):
            found.add(relative)
    return found


def test_only_the_model_layer_and_ask_call_a_model():
    assert _callers() == ALLOWED
