"""docs/integrations/agent-runs.md: its Python examples run as written and print what the
page says they print, and its spec builds and judges the page's run."""

import pytest
import yaml
from doc_snippets import blocks, run_python

from jurist.core import Status, Trajectory, judge_sync
from jurist.specs import JudgeSpecError, judge_from_spec

PAGE = "integrations/agent-runs.md"


def test_the_examples_print_what_the_page_says(capsys: pytest.CaptureFixture[str]) -> None:
    run_python(PAGE, with_model=False)
    printed = capsys.readouterr().out
    promised = "".join(block.code for block in blocks(PAGE, langs=("text",)))
    assert printed == promised


def test_the_spec_builds_and_judges_the_pages_run() -> None:
    namespace: dict[str, object] = {}
    exec(blocks(PAGE, langs=("python",))[0].code.split("ctx =")[0], namespace)
    ctx = Trajectory.from_openai(namespace["messages"]).context("refund")  # type: ignore[arg-type]
    (spec_block,) = blocks(PAGE, langs=("yaml",))
    spec = yaml.safe_load(spec_block.code)
    assert judge_sync(judge_from_spec(spec), ctx).status is Status.PASS
    spec["judges"][2]["max_tool_calls"] = 1
    assert judge_sync(judge_from_spec(spec), ctx).status is Status.FAIL
    spec["judges"][2]["max_steps"] = -1
    with pytest.raises(JudgeSpecError, match=r"judges\[2\]\.max_steps: Input should be greater"):
        judge_from_spec(spec)
