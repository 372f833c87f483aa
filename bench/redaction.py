"""Recall of the PII redactor per kind of personal data, and its precision on ordinary text.

Run: .venv/bin/python bench/redaction.py

Prints a markdown table kind | cases | found | recall over the labelled set in
tests/llm/pii_cases.py, the share of ordinary sentences left untouched, the misses, and the
time per 1 KB text. A value counts as found only when every letter and digit of it lies
inside a replaced span: a half-redacted IPv6 address is a miss.
"""

import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests" / "llm"))

from pii_cases import CASES, CLEAN, Case

from jurist.llm import PresidioRedactor
from jurist.llm._spans import Span

# A typical text of an audit record: a request with some personal data among ordinary prose.
TYPICAL = (
    "Dear support, my name is Maria Schmidt and I live at Musterstraße 12, 10115 Berlin. "
    "Please call me on +49 30 1234567 or write to maria.schmidt@example.de. Order 4415 "
    "arrived on 2024-05-01, but the box was damaged and version 2.1 of the app crashed "
    "three times while I tried to report it. The judge should check whether the answer "
    "below is grounded in the policy, which says refunds take 14 days and are sent to "
    "the original card. Answer: We are sorry; a refund of 49.90 EUR was issued today and "
    "will arrive within two weeks. Reference number 2024-77812. Kind regards, the team. "
    "Additional notes from the agent: the customer was polite, asked twice, and agreed "
    "to wait. No further action is needed unless she writes again before the deadline."
)


def found(case: Case, spans: list[Span]) -> bool:
    start = case.start
    return all(
        any(span.start <= start + i < span.end for span in spans)
        for i, char in enumerate(case.value)
        if char.isalnum()
    )


def measure(redactor: PresidioRedactor) -> tuple[dict[str, tuple[int, int]], list[Case], list[str]]:
    """Per kind (cases, found); the missed cases; the clean sentences that were changed."""
    table: dict[str, tuple[int, int]] = {}
    missed: list[Case] = []
    for kind, cases in CASES.items():
        hits = 0
        for case in cases:
            if found(case, redactor.findings(case.text)):
                hits += 1
            else:
                missed.append(case)
        table[kind] = (len(cases), hits)
    changed = [text for text in CLEAN if redactor.redact(text) != text]
    return table, missed, changed


def main() -> None:
    started = time.perf_counter()
    redactor = PresidioRedactor()
    redactor.load()
    load_seconds = time.perf_counter() - started
    table, missed, changed = measure(redactor)
    print("| kind | cases | found | recall |")
    print("| --- | ---: | ---: | ---: |")
    for kind, (cases, hits) in table.items():
        print(f"| {kind} | {cases} | {hits} | {hits / cases:.0%} |")
    total = sum(cases for cases, _ in table.values())
    hits = sum(hit for _, hit in table.values())
    print(f"| **all** | {total} | {hits} | {hits / total:.0%} |")
    kept = len(CLEAN) - len(changed)
    print(f"\nprecision on ordinary text: {kept}/{len(CLEAN)} sentences left untouched")
    for text in changed:
        print(f"  changed: {text!r} -> {redactor.redact(text)!r}")
    if missed:
        print("\nmissed:")
        for case in missed:
            print(f"  {case.kind:<14} {case.country:<3} {case.value!r} in {case.text!r}")
            print(f"  {'':<18} -> {redactor.redact(case.text)!r}")
    text = TYPICAL[:1024]
    redactor.redact(text)
    times = []
    for _ in range(20):
        start = time.perf_counter()
        redactor.redact(text)
        times.append(time.perf_counter() - start)
    print(
        f"\nengine built in {load_seconds:.1f} s; {statistics.median(times) * 1000:.1f} ms "
        f"(median of 20) to redact a typical {len(text)}-character text; "
        f"entities: {len(redactor.entities)}"
    )


if __name__ == "__main__":
    main()
