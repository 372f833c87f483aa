"""docs/architecture.md's worked example, run as written: one class, one template with its
answer's schema, one registry entry, and the judge works everywhere a spec is taken."""

import re
from pathlib import Path

import pytest

from jurist.core import Context, Status
from jurist.jury import Jury, Majority
from jurist.specs import JudgeSpecError, judge_from_spec, registry
from scripted import LOGPROB_CAPABILITIES, ScriptedModel, with_logprobs

ARCHITECTURE = Path(__file__).parents[1] / "docs" / "architecture.md"


def polite(p_yes: float):
    said = "yes" if p_yes >= 0.5 else "no"
    return with_logprobs('{"answer": "', (said, {"yes": p_yes, "no": 1 - p_yes}), '"}')


@pytest.fixture
def example():
    """The example's names, after running its code block (which registers the type)."""
    [block] = re.findall(r"```python\n(.*?)```", ARCHITECTURE.read_text(), flags=re.DOTALL)
    names: dict = {}
    exec(compile(block, str(ARCHITECTURE), "exec"), names)
    yield names
    registry.unregister("politeness")


async def test_the_new_judge_reads_p_yes_under_its_schema(example):
    model = ScriptedModel(
        "test:judge", [polite(0.9), polite(0.2)], capabilities=LOGPROB_CAPABILITIES
    )
    judge = example["PolitenessJudge"](model, threshold=0.7)
    kind = await judge.judge(Context("reply", output="Thank you for writing to us!"))
    rude = await judge.judge(Context("reply", output="Read the manual."))
    assert kind.status is Status.PASS
    assert rude.status is Status.FAIL
    assert kind.score.value > rude.score.value
    sent = model.requests[0]
    assert sent.json_schema["properties"]["answer"]["enum"] == ["yes", "no"]
    assert "Thank you for writing to us!" in sent.messages[-1].content


async def test_the_registry_entry_makes_it_a_spec_type(example):
    model = ScriptedModel("test:judge", [polite(0.8)] * 3, capabilities=LOGPROB_CAPABILITIES)
    jury = judge_from_spec(
        {
            "type": "jury",
            "strategy": {"type": "majority"},
            "judges": [
                {"type": "politeness", "name": "strict", "threshold": 0.7},
                {"type": "politeness", "name": "lenient"},
                {"type": "contains", "keywords": ["thank"]},
            ],
        },
        model=model,
    )
    assert isinstance(jury, Jury)
    assert isinstance(jury.strategy, Majority)
    verdict = await jury.judge(Context("reply", output="Thank you!"))
    assert verdict.status is Status.PASS


def test_its_parameters_are_checked_where_they_are_declared(example):
    with pytest.raises(JudgeSpecError) as refused:
        judge_from_spec({"type": "politeness", "threshold": 2})
    assert [problem.path for problem in refused.value.problems] == ["threshold"]
