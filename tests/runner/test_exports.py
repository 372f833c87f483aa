"""Exports for review: each item's inputs beside its verdict, and each jury member's vote,
in CSV, JSON lines and pandas, fresh from a run and read back from the store."""

import asyncio
import csv
import io
import json

import pytest
from batch_fakes import Gate, Watcher, dataset

from jurist.core import Status
from jurist.jury import Jury, Majority
from jurist.runner import evaluate, load_run
from jurist.specs import judge_from_spec

JURY = {
    "type": "jury",
    "name": "panel",
    "strategy": {"type": "majority"},
    "judges": [
        {"type": "contains", "name": "refund", "keywords": ["refund"]},
        {"type": "contains", "name": "days", "keywords": ["days"]},
        {"type": "contains", "name": "polite", "keywords": ["please"]},
    ],
}
ROWS = [
    {"id": "a", "question": "Refunds?", "answer": "A refund within 30 days.", "docs": ["d1"]},
    {"id": "b", "question": "Shipping?", "answer": "Please wait 3 days.", "docs": ["d2", "d3"]},
    {"id": "c", "question": "Hours?", "answer": "Nine to five.", "docs": []},
]
VOTES = {  # member -> status by item, as the keywords say
    "refund": ["pass", "fail", "fail"],
    "days": ["pass", "pass", "fail"],
    "polite": ["fail", "pass", "fail"],
}


def write_rows(path, rows=ROWS):
    path.write_text("".join(json.dumps(row) + "\n" for row in rows))
    return path


async def run_jury(**options):
    return await evaluate(
        options.pop("data", ROWS), judge_from_spec(JURY), field_map="context=docs", **options
    )


def check_table(rows: list[dict], *, from_csv: bool) -> None:
    assert [row["item_id"] for row in rows] == ["a", "b", "c"]
    assert [row["status"] for row in rows] == ["pass", "pass", "fail"]
    assert [row["goal"] for row in rows] == ["Refunds?", "Shipping?", "Hours?"]
    assert rows[0]["output"] == "A refund within 30 days."
    contexts = [json.loads(row["context"]) if from_csv else row["context"] for row in rows]
    assert contexts == [["d1"], ["d2", "d3"], []]
    for member, statuses in VOTES.items():
        assert [row[f"vote.{member}"] for row in rows] == statuses
        scores = [float(row[f"vote_score.{member}"]) for row in rows]
        assert scores == [1.0 if s == "pass" else 0.0 for s in statuses]


async def test_a_fresh_result_exports_inputs_and_votes_to_csv_jsonl_and_pandas(tmp_path):
    result = await run_jury()
    assert result.judgments["a"].status is Status.PASS
    out = io.StringIO()
    result.to_csv(out)
    check_table(list(csv.DictReader(io.StringIO(out.getvalue()))), from_csv=True)

    result.to_jsonl(tmp_path / "out.jsonl")
    lines = [json.loads(line) for line in (tmp_path / "out.jsonl").read_text().splitlines()]
    check_table(lines, from_csv=False)
    assert lines[0]["judgment"]["status"] == "pass"

    frame = result.to_pandas()
    check_table(frame.to_dict("records"), from_csv=False)
    assert list(frame.columns[-6:]) == [
        "vote.refund",
        "vote_score.refund",
        "vote.days",
        "vote_score.days",
        "vote.polite",
        "vote_score.polite",
    ]


async def test_a_stored_run_reads_its_votes_from_the_store_and_inputs_from_its_file(
    tmp_path, records
):
    data = write_rows(tmp_path / "answers.jsonl")
    await run_jury(data=data, store=records, name="review")
    loaded = await load_run(records, "review")
    assert loaded.inputs_note is None
    out = io.StringIO()
    loaded.to_csv(out)
    check_table(list(csv.DictReader(io.StringIO(out.getvalue()))), from_csv=True)
    assert loaded.summary.n == 3  # the votes are not counted as items


async def test_a_resumed_run_keeps_the_votes_it_found_stored(records):
    def panel(gate: Gate) -> Jury:
        members = [judge_from_spec(spec) for spec in JURY["judges"][:2]]
        return Jury([*members, gate], Majority(), name="panel", parallel=False)

    data = dataset(4)
    watcher = Watcher(2)
    task = asyncio.create_task(
        evaluate(data, panel(Gate(open_for=2)), store=records, name="part", progress=watcher)
    )
    await watcher.reached.wait()
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    resumed_gate = Gate()
    result = await evaluate(data, panel(resumed_gate), store=records, run="part", resume=True)
    assert len(resumed_gate.calls) == 2  # only the two items not stored
    assert set(result.votes) == {"1", "2", "3", "4"}
    assert [result.votes[i]["gate"].status.value for i in "1234"] == [
        "pass",
        "fail",
        "pass",
        "fail",
    ]
    assert (await load_run(records, "part")).votes == result.votes


async def test_a_changed_or_missing_dataset_leaves_the_inputs_out_saying_why(tmp_path, records):
    data = write_rows(tmp_path / "answers.jsonl")
    await run_jury(data=data, store=records, name="changed")
    write_rows(data, ROWS[:2])
    changed = await load_run(records, "changed")
    assert changed.inputs == {}
    assert changed.inputs_note == f"its dataset {data} has changed since the run"
    assert "goal" not in changed.columns()
    assert "vote.refund" in changed.columns()  # the votes are the store's own
    data.unlink()
    gone = await load_run(records, "changed")
    assert gone.inputs_note is not None
    assert gone.inputs_note.startswith(f"its dataset {data} cannot be read again")


async def test_rows_in_memory_have_no_inputs_once_stored(records):
    await run_jury(store=records, name="memory")
    loaded = await load_run(records, "memory")
    assert loaded.inputs_note == (
        "the run judged rows in memory, and the store keeps no item's inputs"
    )
