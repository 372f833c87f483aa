"""Calibration runs for the viewer's tests, made the way `jurist calibrate` makes them:
`jurist.calibration.calibrate` with the summarization rubric over a small human-rated set,
judged by a `FakeModel` whose scores follow the human ones more or less closely, stored in
the test's store with its report."""

import asyncio
import json
import re
from collections.abc import Coroutine
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any, TypeVar

from jurist.calibration import REPORT_KEY, binary_report, calibrate, calibration_dataset
from jurist.core import Status
from jurist.data import dataset_from_rows, load_labelled
from jurist.judges import CriterionJudge
from jurist.runner import evaluate
from jurist.store import RecordStore
from jurist.testing import FakeModel

# Twelve summaries of four documents; the humans rated coherence and fluency on 1..5.
COHERENCE = [1, 2, 3, 5, 2, 3, 4, 5, 1, 3, 4, 4]
FLUENCY = [5, 4, 3, 2, 4, 5, 3, 1, 2, 5, 4, 3]
T = TypeVar("T")
ITEM = re.compile(r"summary number (\d+)")


def write_ratings(folder: Path) -> Path:
    path = folder / "ratings.jsonl"
    rows = [
        {
            "id": f"D{i // 3}-S{i % 3}",
            "doc_id": f"D{i // 3}",
            "source": f"The source document {i // 3}: the bridge closes on Monday.",
            "output": f"This is summary number {i}: the bridge closes.",
            "human_scores": {"coherence": coherence, "fluency": fluency},
            "scale": [1, 5],
        }
        for i, (coherence, fluency) in enumerate(zip(COHERENCE, FLUENCY, strict=True))
    ]
    path.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
    return path


def rating_model(noise: int) -> FakeModel:
    """A model rating each summary as the humans did, off by `noise` points on every
    other item (kept within 1..5): 0 is a judge that agrees with the humans."""

    def answer(prompt: str) -> dict[str, object]:
        found = ITEM.search(prompt)
        index = int(found.group(1)) if found else 0
        human = FLUENCY[index] if "fluen" in prompt.lower() else COHERENCE[index]
        shift = noise if index % 2 else -noise
        score = min(5, max(1, human + shift))
        return {"reasoning": f"It reads as a {score}.", "score": score, "confidence": 0.8}

    return FakeModel(answer, name=f"fake-rater-{noise}")


async def calibrate_into(
    store: RecordStore, folder: Path, *, name: str, noise: int, key_id: str | None = None
) -> str:
    """A stored calibration run named `name`; its id. With `key_id`, the run is moved to
    that API key's records (as the service stores what a key made)."""
    done = await calibrate(
        calibration_dataset(write_ratings(folder)),
        "summarization",
        dimensions=["coherence", "fluency"],
        model=rating_model(noise),
        goal="Summarise the document.",
        store=store if key_id is None else None,
        name=name,
        n_boot=60,
    )
    if key_id is None:
        assert done.run.run_id is not None
        return done.run.run_id
    # The runner stores the operator's runs; a key's run keeps the same report under its key
    # (its judgments are not needed: the report holds every item's scores).
    run = await store.create_run("eval", name=name, key_id=key_id)
    summary = {REPORT_KEY: done.report.model_dump(mode="json")}
    await store.finish_run(run, "done", summary)
    return run


# Eight answers humans labelled acceptable or not; the judge says "yes" to the even ones.
LABELS = [True, True, False, False, True, False, True, False]


async def calibrate_binary(store: RecordStore, folder: Path, *, name: str) -> str:
    """A binary calibration as a library caller makes one: a criterion judge run over the
    labelled answers (stored like any run), its verdicts against the labels in a report
    kept with the run."""
    path = folder / "labels.jsonl"
    rows = [
        {"id": f"a{i}", "context": "Refunds?", "output": f"Answer {i}.", "label": label}
        for i, label in enumerate(LABELS)
    ]
    path.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
    labelled = load_labelled(path)

    def answer(prompt: str) -> dict[str, str]:
        number = int(re.findall(r"Answer (\d+)\.", prompt)[-1])
        return {"answer": "yes" if number % 2 == 0 else "no", "reason": "It says so."}

    judge = CriterionJudge("The answer is acceptable", FakeModel(answer, name="fake-labeller"))
    inputs = [{"id": r["id"], "goal": r["context"], "output": r["output"]} for r in rows]
    run = await evaluate(dataset_from_rows(inputs), judge, store=store, name=name)
    verdicts = {item: judgment.status is Status.PASS for item, judgment in run.judgments.items()}
    report = binary_report(labelled, verdicts, judge="criterion", model="fake-labeller", n_boot=60)
    assert run.run_id is not None
    stored = await store.get_run(run.run_id)
    assert stored is not None
    summary = {**(stored.summary or {}), REPORT_KEY: report.model_dump(mode="json")}
    await store.finish_run(run.run_id, stored.status, summary)
    return run.run_id


async def plain_run(store: RecordStore, *, name: str) -> str:
    """A batch run that keeps no calibration report."""
    judge = CriterionJudge("The answer is polite", FakeModel({"answer": "yes", "reason": "ok"}))
    rows = [{"id": "q1", "goal": "Thanks?", "output": "You are welcome."}]
    run = await evaluate(dataset_from_rows(rows), judge, store=store, name=name)
    assert run.run_id is not None
    return run.run_id


def seed(
    database: str,
    folder: Path,
    runs: dict[str, int],
    *,
    key_id: str | None = None,
    binary: str | None = None,
    plain: str | None = None,
) -> dict[str, str]:
    """Each of `runs` (name: noise) calibrated into the store at `database`, and when named
    a `binary` calibration and a `plain` batch run: their ids by name."""

    async def write() -> dict[str, str]:
        ids: dict[str, str] = {}
        async with await RecordStore.open(database) as store:
            for name, noise in runs.items():
                ids[name] = await calibrate_into(
                    store, folder, name=name, noise=noise, key_id=key_id
                )
            if binary is not None:
                ids[binary] = await calibrate_binary(store, folder, name=binary)
            if plain is not None:
                ids[plain] = await plain_run(store, name=plain)
        return ids

    return off_loop(write())


def off_loop(work: Coroutine[Any, Any, T]) -> T:
    """`work` run to its end on a thread of its own: once a browser test ran, this thread
    runs Playwright's event loop, where asyncio.run is refused."""
    with ThreadPoolExecutor(1) as pool:
        return pool.submit(asyncio.run, work).result()
