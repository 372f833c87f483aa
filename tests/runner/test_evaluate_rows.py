"""`evaluate` takes rows already in memory, read exactly like a dataset file's rows."""

import pandas as pd
import pytest
from batch_fakes import Gate

from jurist.core import Status
from jurist.data import DatasetError
from jurist.runner import evaluate


async def test_a_list_of_dicts_is_judged_like_a_file():
    rows = [
        {"id": "a", "question": "Refunds?", "answer": "pass: 30 days", "context": ["doc"]},
        {"id": "b", "question": "Shipping?", "answer": "fail", "context": None},
    ]
    gate = Gate()
    result = await evaluate(rows, gate)
    assert result.item_ids == ("a", "b")
    assert [j.status for j in result.judgments.values()] == [Status.PASS, Status.FAIL]
    assert gate.calls == ["pass: 30 days", "fail"]
    assert result.spec["dataset"]["path"] is None
    assert result.spec["dataset"]["columns"]["goal"] == "question"


async def test_a_column_some_rows_lack_is_refused_as_a_file_would_judge_it_error():
    # A file's row without a column the others have is a bad_input item, never a blank.
    rows = [{"output": "pass", "context": ["doc"]}, {"output": "pass"}]
    with pytest.raises(DatasetError, match=r"^rows:2: context: missing, which other rows"):
        await evaluate(rows, Gate())


async def test_a_field_map_names_other_columns():
    rows = [{"input": "Refunds?", "actual_output": "pass"}]
    result = await evaluate(rows, Gate(), field_map="goal=input,output=actual_output")
    assert result.summary.counts["pass"] == 1
    assert result.spec["map"] == "goal=input,output=actual_output"


async def test_a_row_without_the_output_is_refused_naming_row_and_field():
    rows = [{"goal": "q", "output": "pass"}, {"goal": "q", "output": "pass"}, {"goal": "q"}]
    gate = Gate()
    with pytest.raises(DatasetError) as refused:
        await evaluate(rows, gate)
    assert (refused.value.line, refused.value.field) == (3, "output")
    assert str(refused.value).startswith("rows:3: output: missing")
    assert gate.calls == []  # refused before anything was judged


async def test_a_row_that_is_not_a_dict_is_refused_naming_the_row():
    with pytest.raises(DatasetError, match=r"^rows:2: is a str, not a dict"):
        await evaluate([{"output": "pass"}, "pass"], Gate())


async def test_no_output_column_at_all_names_field_map():
    with pytest.raises(ValueError, match=r"^rows: field_map: no column for the output"):
        await evaluate([{"text": "pass"}], Gate())


@pytest.mark.parametrize("data", [{"output": "x"}, 42, b"rows"])
async def test_something_else_is_a_type_error_saying_what_is_taken(data):
    with pytest.raises(TypeError, match="a list of rows"):
        await evaluate(data, Gate())


async def test_a_dataframe_is_refused_saying_how_to_pass_its_rows():
    frame = pd.DataFrame([{"output": "pass"}])
    with pytest.raises(TypeError, match=r"frame.to_dict\('records'\)"):
        await evaluate(frame, Gate())
    result = await evaluate(frame.to_dict("records"), Gate())
    assert result.summary.counts["pass"] == 1
