"""The response cache: deterministic answers are reused, and a broken cache is only a miss."""

import sqlite3
from pathlib import Path

import pytest

from jurist.core import Usage
from jurist.llm import ErrorKind, ModelError, Request, Response
from jurist.llm._cache import Cached, ResponseCache, cache_key
from scripted import ScriptedModel, answer

REQUEST = Request.of("Is the sky blue?")


def cached(tmp_path: Path, script, **options) -> tuple[Cached, ScriptedModel]:
    model = ScriptedModel("openai:gpt-4o", script)
    return Cached(model, ResponseCache(tmp_path / "cache.db"), **options), model


async def test_the_same_deterministic_request_is_answered_once(tmp_path: Path):
    model_response = Response("yes", usage=Usage(12, 3, cost_usd=0.5, model="m", calls=1))
    model, inner = cached(tmp_path, [model_response])
    first = await model.complete(REQUEST)
    second = await model.complete(REQUEST)
    assert inner.calls == 1
    assert first == model_response
    assert not first.cached
    assert second.text == "yes"
    assert second.cached
    assert second.usage.calls == 1
    assert second.usage.cached_calls == 1
    assert second.usage.cost_usd == 0.0
    assert second.usage.input_tokens == 12
    assert second.usage.latency_ms is not None


async def test_sampled_requests_are_not_cached_by_default(tmp_path: Path):
    model, inner = cached(tmp_path, [answer("a"), answer("b")])
    sampled = Request.of("Tell me a joke", temperature=0.8)
    assert (await model.complete(sampled)).text == "a"
    assert (await model.complete(sampled)).text == "b"
    assert inner.calls == 2
    assert (await model.cache.stats()).entries == 0


async def test_sampled_requests_are_cached_when_asked(tmp_path: Path):
    model, inner = cached(tmp_path, [answer("a")], only_deterministic=False)
    sampled = Request.of("Tell me a joke", temperature=0.8)
    await model.complete(sampled)
    assert (await model.complete(sampled)).cached
    assert inner.calls == 1


async def test_a_different_request_or_model_is_a_miss(tmp_path: Path):
    model, inner = cached(tmp_path, [answer("a"), answer("b"), answer("c")])
    await model.complete(REQUEST)
    assert (await model.complete(Request.of("Is the sea blue?"))).text == "b"
    assert (await model.complete(Request.of("Is the sky blue?", max_tokens=5))).text == "c"
    assert inner.calls == 3
    assert cache_key("openai:gpt-4o", REQUEST) != cache_key("openai:gpt-4o-mini", REQUEST)


def test_the_timeout_is_not_part_of_the_key():
    assert cache_key("m", Request.of("x", timeout_s=5)) == cache_key("m", Request.of("x"))


async def test_failures_are_not_cached(tmp_path: Path):
    model, inner = cached(tmp_path, [ModelError(ErrorKind.SERVER_ERROR, "500"), answer("ok")])
    with pytest.raises(ModelError):
        await model.complete(REQUEST)
    assert (await model.complete(REQUEST)).text == "ok"
    assert inner.calls == 2
    assert (await model.cache.stats()).entries == 1


async def test_entries_persist_across_cache_instances(tmp_path: Path):
    model, _ = cached(tmp_path, [answer("kept")])
    await model.complete(REQUEST)
    reopened = Cached(ScriptedModel("openai:gpt-4o"), ResponseCache(tmp_path / "cache.db"))
    response = await reopened.complete(REQUEST)
    assert response.text == "kept"
    assert response.cached


@pytest.mark.parametrize(
    "corruption",
    ["'{not json'", """'{"unexpected": "shape"}'""", "CAST(x'ff80' AS TEXT)", "42"],
    ids=["bad-json", "wrong-shape", "undecodable", "a-number"],
)
async def test_a_corrupt_entry_is_a_miss_and_gets_overwritten(
    tmp_path: Path, corruption: str, caplog: pytest.LogCaptureFixture
):
    model, inner = cached(tmp_path, [answer("old"), answer("new")])
    await model.complete(REQUEST)
    with sqlite3.connect(tmp_path / "cache.db") as db:
        db.execute(f"UPDATE responses SET response = {corruption}")
    assert (await model.complete(REQUEST)).text == "new"
    assert "a miss" in caplog.text
    again = await model.complete(REQUEST)
    assert again.cached
    assert again.text == "new"
    assert inner.calls == 2


async def test_a_file_that_is_not_a_database_is_set_aside_not_fatal(tmp_path: Path):
    path = tmp_path / "cache.db"
    path.write_bytes(b"these are someone's notes, not SQLite\n" * 200)
    model, inner = cached(tmp_path, [answer("fresh")])
    assert (await model.complete(REQUEST)).text == "fresh"
    assert (await model.complete(REQUEST)).cached
    assert inner.calls == 1
    aside = tmp_path / "cache.db.corrupt"
    assert aside.read_bytes().startswith(b"these are someone's notes")


async def test_a_cache_that_cannot_be_opened_lets_calls_through(tmp_path: Path):
    model = ScriptedModel("openai:gpt-4o", [answer("a"), answer("b")])
    broken = Cached(model, ResponseCache(tmp_path))  # a directory, not a file
    assert (await broken.complete(REQUEST)).text == "a"
    assert (await broken.complete(REQUEST)).text == "b"
    assert model.calls == 2


async def test_stats_and_clear(tmp_path: Path):
    model, inner = cached(tmp_path, [answer("a"), answer("b"), answer("a again")])
    await model.complete(Request.of("one"))
    await model.complete(Request.of("two"))
    stats = await model.cache.stats()
    assert stats.entries == 2
    assert stats.bytes > 0
    await model.cache.clear()
    assert (await model.cache.stats()).entries == 0
    assert (await model.complete(Request.of("one"))).text == "a again"
    assert inner.calls == 3


async def test_a_database_with_damaged_pages_is_set_aside_and_rebuilt(tmp_path: Path):
    model, inner = cached(tmp_path, [answer("old"), answer("new")])
    await model.complete(REQUEST)
    path = tmp_path / "cache.db"
    data = bytearray(path.read_bytes())
    assert len(data) > 4096
    data[4096:] = b"\x13" * (len(data) - 4096)  # every page but the header page
    path.write_bytes(bytes(data))
    assert (await model.complete(REQUEST)).text == "new"
    assert (await model.complete(REQUEST)).cached
    assert inner.calls == 2
    assert (tmp_path / "cache.db.corrupt").exists()


async def test_new_weights_under_the_same_name_miss(tmp_path: Path):
    class Weighted(ScriptedModel):
        fingerprint = "local:judge@sha256:aaa"

    cache = ResponseCache(tmp_path / "cache.sqlite3")
    old = Weighted("local:judge", [Response("old answer", usage=Usage(calls=1))])
    assert (await Cached(old, cache).complete(Request.of("q"))).text == "old answer"
    new = Weighted("local:judge", [Response("new answer", usage=Usage(calls=1))])
    new.fingerprint = "local:judge@sha256:bbb"
    assert (await Cached(new, cache).complete(Request.of("q"))).text == "new answer"
