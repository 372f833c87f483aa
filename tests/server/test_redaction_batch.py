"""Concurrent requests' records are redacted together: fewer analyses than records, each
record gets its own redaction back, and a record the redactor cannot read fails alone."""

import asyncio
import threading

import pytest

from jurist.llm import PresidioRedactor
from jurist.server._redaction_batch import RedactionBatch


class Gated:
    """Replaces 'secret'; refuses any text holding 'poison'; counts its calls of
    redact_json by the batches it is handed (a whole batch arrives while the first waits)."""

    def __init__(self) -> None:
        self.texts: list[str] = []
        self.gate = threading.Event()

    def redact(self, text: str) -> str:
        self.gate.wait(5)
        if "poison" in text:
            raise ValueError("cannot read this one")
        self.texts.append(text)
        return text.replace("secret", "<S>")


async def test_each_record_gets_its_own_redaction_back():
    redactor = Gated()
    redactor.gate.set()
    batch = RedactionBatch(lambda: redactor)
    records = [{"output": f"secret {i}", "n": i} for i in range(20)]
    done = await asyncio.gather(*(batch.redact(record) for record in records))
    assert done == [{"output": f"<S> {i}", "n": i} for i in range(20)]


async def test_records_waiting_together_are_redacted_in_one_analysis(monkeypatch):
    calls: list[int] = []
    import jurist.server._redaction_batch as module

    real = module.redact_json

    def counted(value, redactor):  # type: ignore[no-untyped-def]
        calls.append(len(value) if isinstance(value, list) else 1)
        return real(value, redactor)

    monkeypatch.setattr(module, "redact_json", counted)
    redactor = Gated()
    batch = RedactionBatch(lambda: redactor, max_batch=32)
    first = asyncio.create_task(batch.redact({"output": "secret 0"}))
    await asyncio.sleep(0)  # the first record's analysis starts, and waits at the gate
    rest = [asyncio.create_task(batch.redact({"output": f"secret {i}"})) for i in range(1, 9)]
    await asyncio.sleep(0)
    redactor.gate.set()
    done = await asyncio.gather(first, *rest)
    assert [d["output"] for d in done] == [f"<S> {i}" for i in range(9)]
    assert calls == [1, 8]


async def test_a_record_the_redactor_cannot_read_fails_alone():
    redactor = Gated()
    redactor.gate.set()
    batch = RedactionBatch(lambda: redactor)
    results = await asyncio.gather(
        batch.redact({"output": "secret a"}),
        batch.redact({"output": "poison"}),
        batch.redact({"output": "secret b"}),
        return_exceptions=True,
    )
    assert results[0] == {"output": "<S> a"}
    assert isinstance(results[1], ValueError)
    assert results[2] == {"output": "<S> b"}


@pytest.mark.parametrize("n", [1, 6])
async def test_presidio_finds_in_a_batch_what_it_finds_alone(n):
    redactor = PresidioRedactor()
    records = [
        {"output": f"Write to jane.roe{i}@example.com or call 212-555-018{i}.", "n": i}
        for i in range(n)
    ]
    batch = RedactionBatch(lambda: redactor)
    together = await asyncio.gather(*(batch.redact(record) for record in records))
    alone = [await RedactionBatch(lambda: redactor).redact(record) for record in records]
    assert together == alone
    assert all("<EMAIL_ADDRESS>" in r["output"] for r in together)
