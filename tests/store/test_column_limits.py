"""Records are checked against their columns' lengths when made: each column's own limit,
the same answer however many records were made before (the lengths are looked up once)."""

import pytest

from jurist.store import JudgmentRecord, ValidationRecord


def _validation(**changes: object) -> ValidationRecord:
    values: dict[str, object] = {
        "id": "v" * 32,
        "request_sha256": "0" * 64,
        "valid": True,
        "confidence": 1.0,
        "quality_score": 0.5,
        "error_count": 0,
        "warning_count": 0,
        "duration_ms": 1.0,
        "request": {},
        "result": {},
        **changes,
    }
    return ValidationRecord(**values)  # type: ignore[arg-type]


def _judgment(**changes: object) -> JudgmentRecord:
    values: dict[str, object] = {"id": "j" * 32, "judge": "schema", "status": "pass"}
    return JudgmentRecord(**{**values, "judgment": {}, **changes})  # type: ignore[arg-type]


@pytest.mark.parametrize("attempt", range(3))
def test_each_column_keeps_its_own_limit(attempt):
    # The same column name in two tables with different limits: id holds 32 characters in
    # both, judge 200 and layer 40 in judgments only.
    assert _validation(id="a" * 32).id == "a" * 32
    with pytest.raises(ValueError, match=r"ValidationRecord.id has 33 characters.*at most 32"):
        _validation(id="a" * 33)
    assert _judgment(judge="j" * 200).judge == "j" * 200
    with pytest.raises(ValueError, match=r"JudgmentRecord.judge has 201 .*at most 200"):
        _judgment(judge="j" * 201)
    with pytest.raises(ValueError, match=r"JudgmentRecord.layer has 41 .*at most 40"):
        _judgment(layer="l" * 41)
    with pytest.raises(ValueError, match=r"ValidationRecord.key_id has 101 .*at most 100"):
        _validation(key_id="k" * 101)
