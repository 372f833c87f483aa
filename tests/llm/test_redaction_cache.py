"""The redactor's cache of strings seen before: bounded, the same findings as without it,
and a changed string analysed afresh. Presidio is real here."""

import pytest

from jurist.llm import PresidioRedactor, redact_json
from jurist.llm._redaction_cache import MAX_CACHED_CHARS, RedactedCache

PHONE = "call me on +49 30 1234567"


class Counting(PresidioRedactor):
    """A PresidioRedactor that remembers every text it analysed."""

    def __init__(self, cache_size: int = 4096) -> None:
        super().__init__(cache_size=cache_size)
        self.analysed: list[str] = []

    def redact(self, text: str) -> str:
        self.analysed.append(text)
        return super().redact(text)


def record(n: int) -> dict:
    """The shape of a stored validation: fixed strings every record repeats, and values that
    differ, some of them personal data."""
    return {
        "request": {
            "output": {
                "author": f"dev{n}@example.com",
                "note": f"Ring Maria Schmidt on 030 {n:07d}",
            },
            "validation_types": ["schema"],
            "expected_schema": {"type": "object", "properties": {"author": {"type": "string"}}},
        },
        "result": {
            "issues": [{"message": f'{n} is not of type "string"', "location": "$.tests"}],
            "layers": {"schema": {"status": "ok", "verdict": "fail"}},
        },
    }


def test_the_cache_holds_at_most_its_size_and_drops_the_least_recently_used():
    cache = RedactedCache(3)
    for n in range(3):
        cache.put(f"text {n}", f"redacted {n}")
    assert cache.get("text 0") == "redacted 0"  # now the most recently used
    cache.put("text 3", "redacted 3")
    assert len(cache) == 3
    assert cache.get("text 1") is None
    assert [cache.get(f"text {n}") for n in (0, 2, 3)] == ["redacted 0", "redacted 2", "redacted 3"]


def test_long_strings_and_a_zero_size_are_not_cached():
    cache = RedactedCache(10)
    cache.put("x" * (MAX_CACHED_CHARS + 1), "y")
    assert len(cache) == 0
    none = RedactedCache(0)
    none.put("short", "short")
    assert none.get("short") is None


def test_the_cache_keeps_digests_not_the_text_it_was_given():
    cache = RedactedCache(4)
    cache.put(PHONE, "call me on <PHONE_NUMBER>")
    (key,) = cache._entries
    assert isinstance(key, bytes)
    assert b"1234567" not in key
    assert len(key) == 16


def test_a_negative_cache_size_is_refused_by_name():
    with pytest.raises(ValueError, match="cache_size"):
        PresidioRedactor(cache_size=-1)


def test_the_redactors_cache_stays_bounded():
    redactor = PresidioRedactor(cache_size=8)
    redact_json([f"order {n} shipped" for n in range(40)], redactor)
    assert 0 < len(redactor._cache) <= 8


def test_records_get_the_same_findings_with_and_without_the_cache():
    cached = PresidioRedactor()
    uncached = PresidioRedactor(cache_size=0)
    records = [record(n) for n in range(12)]
    first = [redact_json(r, cached) for r in records]
    again = [redact_json(r, cached) for r in records]  # every string read from the cache
    batch = redact_json(records, cached)
    expected = [redact_json(r, uncached) for r in records]
    assert first == expected
    assert again == expected
    assert batch == expected
    assert expected[0]["request"]["output"]["author"] == "<EMAIL_ADDRESS>"
    assert "<PHONE_NUMBER>" in expected[0]["request"]["output"]["note"]


def test_only_strings_not_seen_before_are_analysed_and_a_changed_one_is():
    redactor = Counting()
    first = redact_json({"a": PHONE, "b": "string", "c": "string"}, redactor)
    assert first == {"a": "call me on <PHONE_NUMBER>", "b": "string", "c": "string"}
    # A string that comes twice in one call is analysed once.
    assert len(redactor.analysed) == 1
    assert redactor.analysed[0].count("string") == 1

    redactor.analysed.clear()
    assert redact_json({"a": PHONE, "b": "string"}, redactor) == {"a": first["a"], "b": "string"}
    assert redactor.analysed == []

    changed = PHONE.replace("1234567", "7654321")
    assert redact_json({"a": changed, "b": "string"}, redactor)["a"] == "call me on <PHONE_NUMBER>"
    assert redactor.analysed == [changed]


def test_without_a_cache_every_string_is_analysed_every_time():
    redactor = Counting(cache_size=0)
    redact_json({"a": PHONE}, redactor)
    redact_json({"a": PHONE}, redactor)
    assert redactor.analysed == [PHONE, PHONE]
