"""A run's summary (its maths) and its results exported as JSON lines, CSV and pandas."""

import csv
import io
import json
import statistics

import pandas as pd
import pytest

from jurist import CategoricalScore, Judgment, NumericScore, Status, Usage
from jurist.runner import COLUMNS, RunResult, RunSummary


def usage(cost: float | None, tokens: tuple[int, int] = (100, 20)) -> Usage:
    return Usage(input_tokens=tokens[0], output_tokens=tokens[1], cost_usd=cost, calls=1)


JUDGMENTS = {
    "1": Judgment.ok("good", score=NumericScore(5, 1, 5), usage=usage(0.01)),
    "2": Judgment.ok("fine", score=NumericScore(4, 1, 5), usage=usage(0.02)),
    "3": Judgment.fail("bad", score=NumericScore(1, 1, 5), usage=usage(0.03, (50, 5))),
    "4": Judgment.abstain("cannot tell"),
    "5": Judgment.error("model down", metadata={"cause": "timeout"}),
    "6": Judgment.error("line 6: no column 'answer' (output)", metadata={"cause": "bad_input"}),
    "7": Judgment.error("boom", RuntimeError("boom")),
    "8": Judgment.ok("labelled", score=CategoricalScore("good", ("good", "bad"))),
}


def test_the_summary_counts_rates_scores_tokens_and_cost():
    summary = RunSummary.of(JUDGMENTS.values(), resumed=2, wall_seconds=3.0)
    assert summary.n == 8
    assert summary.counts == {"pass": 3, "fail": 1, "abstain": 1, "error": 3}
    assert summary.pass_rate == 3 / 4  # over decided items: abstentions and errors are not fails
    scores = [1.0, 0.75, 0.0]  # normalised; the categorical score has no number
    assert summary.score_mean == pytest.approx(statistics.fmean(scores))
    assert summary.score_std == pytest.approx(pd.Series(scores).std())
    assert summary.errors_by_cause == {"bad_input": 1, "exception": 1, "timeout": 1}
    assert (summary.input_tokens, summary.output_tokens) == (250, 45)
    assert summary.cost_usd == pytest.approx(0.06)
    assert (summary.judged, summary.resumed) == (6, 2)
    assert summary.items_per_second == pytest.approx(2.0)


def test_one_unknown_cost_makes_the_cost_unknown_and_no_usage_leaves_it_unknown():
    known_and_unknown = [Judgment.ok(usage=usage(0.01)), Judgment.ok(usage=usage(None))]
    assert RunSummary.of(known_and_unknown).cost_usd is None
    summary = RunSummary.of([Judgment.ok(), Judgment.fail()])
    assert summary.cost_usd is None
    assert (summary.input_tokens, summary.output_tokens) == (0, 0)


def test_undecided_runs_have_no_pass_rate_and_one_score_has_no_spread():
    summary = RunSummary.of([Judgment.abstain(), Judgment.ok(score=NumericScore(0.5))])
    assert summary.pass_rate == 1.0
    assert summary.score_std is None
    empty = RunSummary.of([Judgment.abstain(), Judgment.error("x")])
    assert (empty.pass_rate, empty.score_mean, empty.score_std) == (None, None, None)
    assert empty.items_per_second is None


def result() -> RunResult:
    return RunResult("r" * 32, "nightly", "gate", JUDGMENTS, RunSummary.of(JUDGMENTS.values()))


def test_jsonl_holds_the_columns_and_each_whole_judgment(tmp_path):
    path = tmp_path / "out.jsonl"
    result().to_jsonl(path)
    lines = [json.loads(line) for line in path.read_text().splitlines()]
    assert [line["item_id"] for line in lines] == list(JUDGMENTS)
    assert all(list(line)[: len(COLUMNS)] == list(COLUMNS) for line in lines)
    assert [Judgment.from_dict(line["judgment"]) for line in lines] == list(JUDGMENTS.values())
    assert lines[2]["score"] == 0.0
    assert lines[4]["cause"] == "timeout"
    assert lines[0]["cost_usd"] == 0.01


def test_csv_has_a_header_and_empty_cells_for_unknowns():
    out = io.StringIO()
    result().to_csv(out)
    table = list(csv.DictReader(io.StringIO(out.getvalue())))
    assert list(table[0]) == list(COLUMNS)
    assert [row["status"] for row in table] == [
        "pass",
        "pass",
        "fail",
        "abstain",
        "error",
        "error",
        "error",
        "pass",
    ]
    assert table[1]["score"] == "0.75"
    assert table[3]["score"] == ""
    assert table[6]["cause"] == "exception"
    assert table[7]["score"] == ""  # categorical: no number without a category map


def test_a_dataframe_has_one_row_per_item():
    frame = result().to_pandas()
    assert list(frame.columns) == list(COLUMNS)
    assert list(frame["item_id"]) == list(JUDGMENTS)
    assert frame["score"].mean() == pytest.approx(result().summary.score_mean)
    assert frame["status"].value_counts()["error"] == 3


def test_without_pandas_the_error_says_how_to_install_it(monkeypatch):
    import importlib

    real = importlib.import_module

    def no_pandas(name: str, *args, **kwargs):
        if name == "pandas":
            raise ImportError("No module named 'pandas'")
        return real(name, *args, **kwargs)

    monkeypatch.setattr("jurist.runner._results.importlib.import_module", no_pandas)
    with pytest.raises(ImportError, match=r"pip install 'jurist\[dataframes\]'"):
        result().to_pandas()


def test_statuses_are_reported_under_their_wire_names():
    summary = RunSummary.of([Judgment.ok()])
    assert set(summary.counts) == {status.value for status in Status}
    assert json.loads(json.dumps(summary.to_dict()))["counts"]["pass"] == 1
