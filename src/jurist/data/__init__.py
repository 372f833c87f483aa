"""Datasets: the one reader of rows from JSON Lines, JSON arrays, CSV and Parquet, the
dataset of a batch evaluation (items made into Contexts through a column map) and the
labelled datasets calibration measures judges against, and the one labelled dataset
that ships with jurist (SummEval's 100 rated summaries, checked against its sha256).

    rows = read_rows("answers.csv")                   # Row(line, values, problem) each
    dataset = load_dataset("answers.jsonl", "output=answer,context=docs")
    labelled = load_labelled("ratings.jsonl")         # ratings, binary or pairwise
    summeval = summeval_100()                         # the shipped calibration set

Every error is a DatasetError naming `file:line: field: problem` (what is known of it).
Parquet needs the `dataframes` extra (pyarrow).
"""

from jurist.data._dataset import (
    DEFAULT_COLUMNS,
    MAX_ITEM_ID,
    Dataset,
    FieldMap,
    Item,
    dataset_from_rows,
    load_dataset,
)
from jurist.data._errors import DatasetError
from jurist.data._labelled import (
    BinaryItem,
    DatasetItem,
    DatasetKind,
    LabelledDataset,
    PairwiseItem,
    PairwiseLabel,
    RatingItem,
    load_labelled,
)
from jurist.data._rows import FORMATS, Row, Rows, format_of, jsonl_rows, kind_of, read_rows
from jurist.data._shipped import SUMMEVAL_100_SHA256, summeval_100, summeval_100_path

__all__ = [
    "DEFAULT_COLUMNS",
    "FORMATS",
    "MAX_ITEM_ID",
    "SUMMEVAL_100_SHA256",
    "BinaryItem",
    "Dataset",
    "DatasetError",
    "DatasetItem",
    "DatasetKind",
    "FieldMap",
    "Item",
    "LabelledDataset",
    "PairwiseItem",
    "PairwiseLabel",
    "RatingItem",
    "Row",
    "Rows",
    "dataset_from_rows",
    "format_of",
    "jsonl_rows",
    "kind_of",
    "load_dataset",
    "load_labelled",
    "read_rows",
    "summeval_100",
    "summeval_100_path",
]
