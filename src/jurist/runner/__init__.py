"""Batch evaluation: judge every row of a dataset, store each judgment as it completes,
resume an interrupted run without judging anything twice, and summarise.

    dataset = jurist.data.load_dataset("answers.jsonl", "output=answer,context=docs")
    choice = resolve_judge("checks.yaml")                  # or rubric:ID, criterion:TEXT
    async with await RecordStore.open() as store:
        result = await evaluate(dataset, choice, store=store, name="nightly")
    print(result.summary.pass_rate)
    result.to_csv("results.csv")      # inputs, verdict, and each jury member's vote
    result.to_junit("jurist.xml")     # a JUnit report for CI

Rows in memory are a dataset too: `await evaluate([{"goal": ..., "output": ...}, ...], judge)`.

From sync code: `jurist.run_sync(lambda: evaluate(...))`.
"""

# A batch starts from a dataset: its two constructors are part of the runner's surface, so
# `from jurist.runner import load_dataset, evaluate` is all a script needs.
from jurist.data import dataset_from_rows, load_dataset
from jurist.runner._cluster import CLUSTER_FORMS, Cluster, ClusterError, check_cluster
from jurist.runner._columns import error_cause
from jurist.runner._engine import evaluate, load_run
from jurist.runner._inputs import stored_inputs
from jurist.runner._judges import (
    JUDGE_FORMS,
    JudgeChoice,
    JudgeChoiceError,
    describe_judge,
    resolve_judge,
)
from jurist.runner._progress import BarProgress, Progress
from jurist.runner._results import COLUMNS, RunResult, RunSummary

__all__ = [
    "CLUSTER_FORMS",
    "COLUMNS",
    "JUDGE_FORMS",
    "BarProgress",
    "Cluster",
    "ClusterError",
    "JudgeChoice",
    "JudgeChoiceError",
    "Progress",
    "RunResult",
    "RunSummary",
    "check_cluster",
    "dataset_from_rows",
    "describe_judge",
    "error_cause",
    "evaluate",
    "load_dataset",
    "load_run",
    "resolve_judge",
    "stored_inputs",
]
