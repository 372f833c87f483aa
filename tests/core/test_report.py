"""Typed reports: written flat into a judgment's metadata, read back validated by kind."""

import pytest

from jurist.core import Judgment, Report, ReportError


class _Tally(Report, kind="test-tally"):
    counted: int
    names: tuple[str, ...] = ()


class _Other(Report, kind="test-other"):
    note: str


def test_a_report_round_trips_through_a_judgments_metadata() -> None:
    report = _Tally(counted=2, names=("a", "b"))
    judgment = Judgment.ok("fine", metadata={"judge": "x", **report.to_metadata()})

    assert judgment.metadata["counted"] == 2  # flat: served and stored JSON keep their shape
    assert _Tally.of(judgment) == report
    assert Report.of(judgment) == report
    assert _Tally.of(Judgment.from_json(judgment.to_json())) == report


def test_another_kind_or_none_reads_as_none() -> None:
    other = Judgment.ok(metadata=_Other(note="n").to_metadata())

    assert _Tally.of(other) is None
    assert _Tally.of(Judgment.ok(metadata={"counted": 3})) is None
    assert isinstance(Report.of(other), _Other)


def test_a_judgment_naming_a_kind_it_does_not_hold_is_an_error_naming_the_field() -> None:
    broken = Judgment.ok(metadata={"report": "test-tally", "counted": "many"})

    with pytest.raises(ReportError, match="counted"):
        _Tally.of(broken)


def test_a_kind_is_claimed_once() -> None:
    with pytest.raises(TypeError, match="test-tally"):

        class _Clash(Report, kind="test-tally"):
            pass


class _Detailed(_Tally, kind="test-detailed"):
    detail: str


def test_a_derived_kind_reads_as_its_base_but_not_the_other_way() -> None:
    judgment = Judgment.ok(metadata=_Detailed(counted=1, detail="d").to_metadata())

    assert isinstance(_Tally.of(judgment), _Detailed)
    assert _Detailed.of(Judgment.ok(metadata=_Tally(counted=1).to_metadata())) is None
