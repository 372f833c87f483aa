"""`as_judge`: the one way a library caller's judge (the pytest plugin's, the bridges') is
turned into a Judge: the judge itself, a spec dict, or a spec string."""

from pathlib import Path

import pytest

from jurist.core import Context, Status, judge_sync
from jurist.judges import ContainsJudge
from jurist.specs import SpecError, as_judge
from jurist.testing import FakeModel

CTX = Context("Refunds?", output="Refunds within 30 days.")


def test_a_judge_is_taken_as_it_is() -> None:
    judge = ContainsJudge(["30 days"])
    assert as_judge(judge) is judge


def test_a_spec_dict_and_a_bare_type_are_built() -> None:
    contains = as_judge({"type": "contains", "keywords": ["30 days"]})
    assert judge_sync(contains, CTX).status is Status.PASS
    bare = as_judge("json")
    assert judge_sync(bare, Context("g", output='{"a": 1}')).status is Status.PASS


def test_a_short_form_is_built_with_the_model_given() -> None:
    model = FakeModel({"answer": "yes", "reason": "It says 30 days."})
    judge = as_judge("criterion:The answer states the refund window", model=model)
    assert judge_sync(judge, CTX).status is Status.PASS
    assert model.calls


def test_a_spec_file_is_read(tmp_path: Path) -> None:
    spec = tmp_path / "checks.yaml"
    spec.write_text("type: contains\nkeywords: [60 days]\n")
    assert judge_sync(as_judge(str(spec)), CTX).status is Status.FAIL  # the file's keyword


def test_what_is_none_of_the_forms_is_refused_naming_it() -> None:
    with pytest.raises(SpecError, match="keywords"):
        as_judge({"type": "contains"})
    with pytest.raises(ValueError, match="'be nice' is none of the forms"):
        as_judge("be nice")
    with pytest.raises(TypeError, match="not int"):
        as_judge(42)  # type: ignore[arg-type]
