"""What every bridge shares: the judge a caller names (object, spec dict, short form, spec
file), a call that raises, the sync wrapper inside a running loop, and importing a bridge
without its framework."""

import asyncio
import os
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("openai")

from openai.types.chat import ChatCompletion

from jurist.bridges import CALL_ERROR
from jurist.bridges import openai as bridge
from jurist.core import Context, ExecutionStatus, Judgment, Status, judge
from jurist.jury import Consensus, Jury
from jurist.specs import SpecError
from jurist.testing import FakeModel


def completion(content: str = "Refunds within 30 days.") -> ChatCompletion:
    return ChatCompletion.model_validate(
        {
            "id": "chatcmpl-1",
            "object": "chat.completion",
            "created": 1700000000,
            "model": "gpt-4o-mini",
            "choices": [
                {
                    "index": 0,
                    "finish_reason": "stop",
                    "message": {"role": "assistant", "content": content},
                }
            ],
        }
    )


@judge
def mentions_days(ctx: Context) -> bool:
    return "days" in ctx.output_text()


def test_a_spec_dict_is_built_into_a_judge() -> None:
    spec = {"type": "contains", "keywords": ["days"]}
    assert bridge.evaluate_sync("g", completion, spec).status is Status.PASS
    assert bridge.evaluate_sync("g", lambda: completion("soon"), spec).status is Status.FAIL


def test_a_jury_object_judges() -> None:
    thirty = judge(lambda ctx: "30" in ctx.output_text(), name="thirty")
    jury = Jury([mentions_days, thirty], Consensus())
    assert bridge.evaluate_sync("g", completion, jury).status is Status.PASS


def test_a_spec_file_is_read(tmp_path: Path) -> None:
    spec = tmp_path / "judge.yaml"
    spec.write_text("type: contains\nkeywords: [weeks]\n")
    assert bridge.evaluate_sync("g", completion, str(spec)).status is Status.FAIL


def test_a_rubric_short_form_asks_the_model() -> None:
    model = FakeModel({"reasoning": "Clear.", "score": 5, "confidence": 0.9})
    judgment = bridge.evaluate_sync("g", completion, "rubric:answer-quality", model=model)
    assert judgment.status is not Status.ERROR, judgment.reasoning
    assert model.calls > 0


def test_a_bad_spec_is_refused_naming_the_problem() -> None:
    with pytest.raises(SpecError, match="keywords"):
        bridge.evaluate_sync("g", completion, {"type": "contains"})
    with pytest.raises(ValueError, match="none of the forms"):
        bridge.evaluate_sync("g", completion, "be nice")
    with pytest.raises(TypeError, match="judge must be a Judge"):
        bridge.evaluate_sync("g", completion, 42)  # type: ignore[arg-type]


def test_a_call_that_is_not_callable_is_refused() -> None:
    with pytest.raises(TypeError, match="call must be a zero-argument callable"):
        bridge.evaluate_sync("g", completion(), mentions_days)  # type: ignore[arg-type]


def test_a_failing_call_is_an_error_and_is_not_judged() -> None:
    asked: list[Context] = []

    @judge
    def spy(ctx: Context) -> Judgment:
        asked.append(ctx)
        return Judgment.ok()

    def call() -> ChatCompletion:
        raise RuntimeError("connection reset")

    judgment = bridge.evaluate_sync("Refunds?", call, spy, run="nightly")
    assert asked == []
    assert judgment.status is Status.ERROR
    assert judgment.metadata["cause"] == "error"
    assert judgment.metadata["execution_status"] == ExecutionStatus.FAILED.value
    assert judgment.metadata[CALL_ERROR] == {
        "type": "builtins.RuntimeError",
        "message": "connection reset",
    }
    assert judgment.metadata["run"] == "nightly"
    assert "connection reset" in judgment.reasoning


async def test_a_timeout_error_is_a_timeout() -> None:
    async def call() -> ChatCompletion:
        async with asyncio.timeout(0):
            await asyncio.Event().wait()
        raise AssertionError("unreachable")

    judgment = await bridge.evaluate("g", call, mentions_days)
    assert judgment.metadata["cause"] == "timeout"
    assert judgment.metadata["execution_status"] == ExecutionStatus.TIMEOUT.value


async def test_a_result_the_bridge_does_not_take_raises() -> None:
    # Not the call failing: the caller handed the wrong framework's bridge.
    with pytest.raises(TypeError, match="takes a ChatCompletion or a Response"):
        await bridge.evaluate("g", lambda: "text", mentions_days)


async def test_evaluate_sync_works_inside_a_running_loop() -> None:
    judgment = bridge.evaluate_sync("g", completion, mentions_days)
    assert judgment.status is Status.PASS


def test_goal_must_be_text() -> None:
    with pytest.raises(TypeError, match="goal must be a string"):
        bridge.from_result(completion(), None)  # type: ignore[arg-type]


def _python(code: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        check=False,
        env={**os.environ, "PYTHONWARNINGS": "ignore"},
        timeout=120,
    )


def test_importing_jurist_bridges_imports_no_framework() -> None:
    result = _python(
        "import sys, jurist, jurist.bridges, jurist.core\n"
        "loaded = {'openai', 'anthropic', 'langchain_core', 'llama_index'} & set(sys.modules)\n"
        "assert not loaded, loaded\n"
        "import jurist.bridges as b\n"
        "assert b.openai.__name__ == 'jurist.bridges.openai'\n"
        "assert 'openai' in sys.modules\n"
    )
    assert result.returncode == 0, result.stderr


@pytest.mark.parametrize(
    ("bridge_name", "framework"),
    [
        ("openai", "openai"),
        ("anthropic", "anthropic"),
        ("langchain", "langchain_core"),
        ("llamaindex", "llama_index"),
    ],
)
def test_a_bridge_without_its_framework_names_the_extra(bridge_name: str, framework: str) -> None:
    result = _python(
        f"import sys; sys.modules[{framework!r}] = None\nimport jurist.bridges.{bridge_name}\n"
    )
    assert result.returncode != 0
    assert f"pip install 'jurist[{bridge_name}]'" in result.stderr
