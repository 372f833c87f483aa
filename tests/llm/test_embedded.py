"""The embedded runtime for real, with SmolLM2 (fast; it cannot judge, but it runs)."""

import asyncio
import os
import signal
import subprocess
import sys
import threading
from pathlib import Path

import jsonschema_rs
import pytest

from jurist.llm import ErrorKind, ModelError, Request
from jurist.llm._catalog import CATALOG
from jurist.llm._embedded import (
    SPEED_MARGIN,
    EmbeddedModel,
    LoadOptions,
    _Runtime,
    measured_speed,
    time_limit_s,
)
from jurist.llm._get_model import get_model
from jurist.llm._weights import prepare_weights
from jurist.llm._wrapper import identity
from jurist.settings import Settings

SMALL = "local:smollm2-135m"
VERDICT = {
    "type": "object",
    "properties": {"verdict": {"enum": ["yes", "no"]}, "reason": {"type": "string"}},
    "required": ["verdict", "reason"],
    "additionalProperties": False,
}


@pytest.fixture
def settings(tmp_path: Path) -> Settings:
    # A private home (response cache, store), but the shared models directory: assembling
    # weights again for every test would only copy a gigabyte around.
    shared_models = Settings().models_dir
    return Settings(JURIST_HOME=str(tmp_path), JURIST_MODELS_DIR=str(shared_models))


def question(text: str, **options: object) -> Request:
    return Request.of(text, **{"max_tokens": 40, **options})


async def test_schema_valid_json_logprobs_usage_and_a_cache_hit(settings: Settings):
    model = get_model(SMALL, settings=settings)
    request = question(
        "Is the sky green? Give a verdict and a short reason.",
        json_schema=VERDICT,
        logprobs=True,
        top_logprobs=5,
        max_tokens=60,
    )
    first = await model.complete(request)
    assert jsonschema_rs.validator_for(VERDICT).is_valid(first.json)
    assert first.logprobs
    assert all(len(token.top) == 5 for token in first.logprobs)
    usage = first.usage
    assert (usage.calls, usage.cached_calls, usage.model) == (1, 0, SMALL)
    assert usage.input_tokens > 10
    assert usage.output_tokens > 0
    assert usage.latency_ms is not None
    assert usage.latency_ms > 0
    assert usage.cost_usd == 0.0

    second = await model.complete(request)
    assert second.cached
    assert (second.text, second.json) == (first.text, first.json)
    assert second.usage.cost_usd == 0.0
    assert settings.cache_file.exists()


async def test_generations_run_one_at_a_time_across_models(
    settings: Settings, monkeypatch: pytest.MonkeyPatch
):
    in_flight = 0
    most = 0
    lock = threading.Lock()
    generate = _Runtime.generate

    def counting(self: _Runtime, payload: dict) -> tuple[dict, float]:
        nonlocal in_flight, most
        with lock:
            in_flight += 1
            most = max(most, in_flight)
        try:
            return generate(self, payload)
        finally:
            with lock:
                in_flight -= 1

    monkeypatch.setattr(_Runtime, "generate", counting)
    path = prepare_weights(CATALOG["smollm2-135m"], settings.models_dir)
    # Two loaded models (one file, two context sizes): still one generation at a time.
    models = [
        EmbeddedModel("a", path, options=LoadOptions(context_tokens=2048)),
        EmbeddedModel("b", path, options=LoadOptions(context_tokens=4096)),
    ]
    answers = await asyncio.gather(
        *(
            models[i % 2].complete(question(f"Name a colour number {i}.", max_tokens=8))
            for i in range(4)
        )
    )
    assert most == 1
    assert all(answer.usage.calls == 1 for answer in answers)
    assert {answer.usage.model for answer in answers} == {"a", "b"}


async def test_the_cache_keys_on_the_weights_not_only_the_name(settings: Settings):
    model = get_model(SMALL, settings=settings)
    assert identity(model) == f"{SMALL}@sha256:{CATALOG['smollm2-135m'].sha256}"


async def test_several_samples_differ_by_seed(settings: Settings):
    model = get_model(SMALL, settings=settings, cache=False)
    response = await model.complete(
        question("Invent a name for a cat.", temperature=1.0, n=3, max_tokens=8)
    )
    assert len(response.choices) == 3
    assert response.usage.calls == 3
    assert len({choice.text for choice in response.choices}) > 1


async def test_a_prompt_past_the_context_is_a_client_error(settings: Settings):
    model = get_model(SMALL, settings=settings, cache=False)
    with pytest.raises(ModelError) as caught:
        await model.complete(question("word " * 9000))
    assert caught.value.kind is ErrorKind.CLIENT_ERROR
    assert "context" in caught.value.cause
    assert "JURIST_LOCAL_CONTEXT" in caught.value.cause
    assert caught.value.attempts == 1


async def test_a_gguf_file_by_path(settings: Settings):
    path = prepare_weights(CATALOG["smollm2-135m"], settings.models_dir)
    model = get_model(f"local:{path}", settings=settings, cache=False)
    assert model.name == f"local:{path}"
    assert model.capabilities.logprobs
    response = await model.complete(question("Say hello.", max_tokens=5))
    assert response.text


async def test_a_request_given_up_in_the_queue_never_runs(
    settings: Settings, monkeypatch: pytest.MonkeyPatch
):
    ran: list[str] = []
    started = threading.Event()
    generate = _Runtime.generate

    def recording(self: _Runtime, payload: dict) -> tuple[dict, float]:
        ran.append(payload["messages"][-1]["content"])
        started.set()
        return generate(self, payload)

    monkeypatch.setattr(_Runtime, "generate", recording)
    model = get_model(SMALL, settings=settings, cache=False)
    await model.complete(question("Warm up.", max_tokens=1))  # loaded before the race
    first = asyncio.create_task(model.complete(question("Count to twenty.", max_tokens=48)))
    await asyncio.to_thread(started.wait, 30)
    queued = asyncio.create_task(model.complete(question("Never asked.", max_tokens=8)))
    await asyncio.sleep(0)  # let it reach the queue
    queued.cancel()
    await first
    with pytest.raises(asyncio.CancelledError):
        await queued
    # The queue is first in, first out: had the cancelled request stayed, it would run first.
    await model.complete(question("Asked last.", max_tokens=1))
    assert ran[-2:] == ["Count to twenty.", "Asked last."]
    assert "Never asked." not in ran


def test_ctrl_c_mid_generation_leaves_without_waiting_for_it(tmp_path: Path):
    script = Path(__file__).with_name("interrupted_generation.py")
    environment = {
        **os.environ,
        "JURIST_HOME": str(tmp_path),
        "JURIST_MODELS_DIR": str(Settings().models_dir),
    }
    with (tmp_path / "stderr.log").open("w") as errors:
        process = subprocess.Popen(
            [sys.executable, str(script)],
            stdout=subprocess.PIPE,
            stderr=errors,
            text=True,
            env=environment,
        )
        assert process.stdout is not None
        try:
            assert process.stdout.readline().strip() == "generating"
            process.send_signal(signal.SIGINT)
            # The generation needs a minute or more: a process waiting for it misses this.
            code = process.wait(timeout=20)
        finally:
            process.kill()
            process.wait()
            process.stdout.close()
    said = (tmp_path / "stderr.log").read_text()
    assert code == 130, said
    assert "interrupted" in said
    assert "Fatal Python error" not in said


async def test_the_time_limit_follows_the_measured_speed(settings: Settings):
    # A limit far below what any generation takes: fixed, it would cut every answer short.
    # Once the runtime has measured its speed, the limit is what the tokens asked for take
    # at that speed (with a margin), so a slow machine's answers are not turned into ERRORs.
    model = get_model(SMALL, settings=settings)
    counting = "Count from 1 to 60, separated by commas."
    await model.complete(question(counting, max_tokens=40, temperature=0.0))
    await model.complete(question(counting + " Then stop.", max_tokens=40, temperature=0.0))

    answer = await model.complete(
        question("Count from 1 to 60, one number per line.", max_tokens=40, timeout_s=0.001)
    )

    assert answer.text
    assert answer.usage.output_tokens > 1


def test_the_time_limit_is_the_slowest_recent_speed_times_the_tokens_with_a_margin():
    request = Request.of("x", max_tokens=100, timeout_s=10.0)
    assert time_limit_s(request, []) == 10.0  # nothing measured yet: the configured limit
    assert time_limit_s(request, [50.0, 5.0]) == SPEED_MARGIN * 100 / 5.0
    assert time_limit_s(request, [400.0]) == 10.0  # never below the configured limit
    assert time_limit_s(Request.of("x", timeout_s=None), [5.0]) is None
    assert measured_speed({"timings": {"predicted_n": 40, "predicted_ms": 2000.0}}) == 20.0
    assert measured_speed({"timings": {"predicted_n": 3, "predicted_ms": 10.0}}) is None
