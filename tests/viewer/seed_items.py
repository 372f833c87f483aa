"""Runs to look at item by item: a dataset file of three answers about a harbour town,
judged for faithfulness by `jurist.runner.evaluate` over a FakeModel that lists each
output's claims and gives each claim a verdict with P(supported) at its token and a quote.
Two runs of the same file differ where the scripts differ."""

import asyncio
import json
import math
from collections.abc import Coroutine, Mapping
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any, TypeVar

from jurist.core import Judgment, NumericScore, Status, Usage
from jurist.judges import CriterionJudge, FaithfulnessJudge
from jurist.jury import Jury, Majority
from jurist.llm import Capabilities, Choice, Response, TokenLogprob, TopLogprob
from jurist.runner import RunResult, evaluate
from jurist.store import JudgmentRecord, RecordStore
from jurist.testing import FakeModel

SOURCE = (
    "Port Ellis is a fishing town on the north coast. "
    "Its lighthouse was built in 1872 and still guides the boats home. "
    "The harbour market opens every Saturday morning."
)
# item id -> (goal, output, the claims its output makes)
ITEMS: dict[str, tuple[str, str, list[str]]] = {
    "1": (
        "When was the lighthouse built?",
        "The lighthouse was built in 1872.",
        ["The lighthouse was built in 1872."],
    ),
    "2": (
        "When does the market open?",
        "The market opens every Saturday morning. It sells fresh crabs.",
        ["The market opens every Saturday morning.", "The market sells fresh crabs."],
    ),
    "3": (
        "Where is Port Ellis?",
        "Port Ellis is on the north coast.",
        ["Port Ellis is on the north coast."],
    ),
}
# claim -> (P(supported), the quote the model gives)
SUPPORTED: dict[str, tuple[float, str]] = {
    "The lighthouse was built in 1872.": (0.93, "Its lighthouse was built in 1872"),
    "The market opens every Saturday morning.": (
        0.91,
        "The harbour market opens every Saturday morning.",
    ),
    "The market sells fresh crabs.": (0.08, "The market sells crabs on the pier."),
    "Port Ellis is on the north coast.": (0.88, "Port Ellis is a fishing town on the north coast."),
}
T = TypeVar("T")
LOGPROBS = Capabilities(logprobs=True, max_top_logprobs=20, json_schema=True, seed=True, local=True)


def write_dataset(directory: Path) -> Path:
    path = directory / "harbour.jsonl"
    rows = [
        {"id": item_id, "goal": goal, "output": output, "context": [SOURCE]}
        for item_id, (goal, output, _) in ITEMS.items()
    ]
    path.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
    return path


def _verdict(p_supported: float, quote: str) -> Response:
    """A verdict whose "verdict" token carries P(supported) among its alternatives."""
    rest = (1.0 - p_supported) / 2
    said = "supported" if p_supported >= 0.5 else "not_mentioned"
    chances = {"supported": p_supported, "contradicted": rest, "not_mentioned": rest}
    pieces = ['{"verdict": "', said, f'", "quote": {json.dumps(quote)}}}']
    tokens = (
        TokenLogprob(pieces[0], 0.0, (TopLogprob(pieces[0], 0.0),)),
        TokenLogprob(
            said,
            math.log(chances[said]),
            tuple(TopLogprob(word, math.log(p)) for word, p in chances.items()),
        ),
        TokenLogprob(pieces[2], 0.0, (TopLogprob(pieces[2], 0.0),)),
    )
    usage = Usage(input_tokens=120, output_tokens=3, model="fake:grounding", calls=1)
    choice = Choice("".join(pieces), logprobs=tokens, finish_reason="stop")
    return Response.from_choices([choice], usage)


def grounding_model(supported: Mapping[str, tuple[float, str]] = SUPPORTED) -> FakeModel:
    """Answers the claim extraction of each output and each claim's verdict."""

    def reply(prompt: str) -> str | Response:
        if "Claim: " in prompt:
            claim = prompt.rstrip().rsplit("Claim: ", 1)[1]
            return _verdict(*supported[claim])
        for _goal, output, claims in ITEMS.values():
            if output in prompt:
                return json.dumps({"claims": claims})
        raise AssertionError(f"a prompt the script does not know: {prompt[:200]}")

    return FakeModel(reply, name="fake:grounding", capabilities=LOGPROBS)


async def judge_run(
    database: str,
    dataset: Path,
    name: str,
    supported: Mapping[str, tuple[float, str]] = SUPPORTED,
) -> RunResult:
    """A faithfulness run of `dataset`, stored in `database` under `name`."""
    judge = FaithfulnessJudge(grounding_model(supported), min_score=0.8, name="faithfulness")
    async with await RecordStore.open(database) as store:
        return await evaluate(dataset, judge, store=store, name=name, concurrency=2)


# The second run of the same file: the lighthouse claim is no longer supported (item 1 flips
# to FAIL) and the crabs are quoted from the source (item 2 flips to PASS); item 3 is as was.
CHANGED: dict[str, tuple[float, str]] = {
    **SUPPORTED,
    "The lighthouse was built in 1872.": (0.12, ""),
    "The market sells fresh crabs.": (0.9, "The harbour market opens every Saturday morning."),
}


async def judge_jury_run(database: str, dataset: Path, name: str) -> RunResult:
    """A jury of a faithfulness judge and a criterion judge, each vote stored beside the
    verdict."""
    panel = Jury(
        [
            FaithfulnessJudge(grounding_model(), min_score=0.8, name="faithfulness"),
            CriterionJudge(
                "The answer is one short sentence or two",
                FakeModel({"answer": "yes", "reason": "It is short."}, name="fake:criterion"),
                name="brevity",
            ),
        ],
        Majority(),
        name="panel",
    )
    async with await RecordStore.open(database) as store:
        return await evaluate(dataset, panel, store=store, name=name, concurrency=2)


def seeded(work: Coroutine[Any, Any, T]) -> T:
    """`work` run to its end on a thread of its own: in a browser test this thread already
    runs Playwright's event loop, where asyncio.run is refused."""
    with ThreadPoolExecutor(1) as pool:
        return pool.submit(asyncio.run, work).result()


async def judge_kept_run(database: str, dataset: Path, name: str) -> RunResult:
    """A faithfulness run that keeps the prompts sent and the raw answers."""
    judge = FaithfulnessJudge(grounding_model(), min_score=0.8, name="faithfulness")
    async with await RecordStore.open(database) as store:
        return await evaluate(
            dataset, judge, store=store, name=name, concurrency=2, keep_calls=True
        )


async def every_change(database: str) -> None:
    """Two runs of one dataset, by hand: items that keep, move their score, flip, and are
    judged by one run only."""
    spec = {"judge": {"name": "j"}, "dataset": {"path": None, "sha256": "f" * 64}}
    a = {
        "1": ("pass", 0.9),
        "2": ("pass", 0.9),
        "3": ("fail", 0.2),
        "10": ("error", None),
        "11": ("pass", 0.7),
    }
    b = {
        "1": ("pass", 0.9),
        "2": ("pass", 0.6),
        "4": ("pass", 1.0),
        "10": ("pass", 0.8),
        "11": ("pass", 0.65),
    }
    async with await RecordStore.open(database) as store:
        for name, verdicts in (("a", a), ("b", b)):
            run_id = await store.create_run("eval", name=name, spec=spec)
            await store.save_judgments(
                [
                    JudgmentRecord.of(
                        Judgment(Status(status), None if score is None else NumericScore(score)),
                        judge="j",
                        run_id=run_id,
                        item_id=item_id,
                    )
                    for item_id, (status, score) in verdicts.items()
                ]
            )
