"""The progress bar: off a terminal it prints the final state once, on one line."""

import io

from rich.console import Console

from jurist import Judgment, Usage
from jurist.runner import BarProgress


def test_off_a_terminal_the_bar_prints_one_final_line_with_the_tallies():
    out = io.StringIO()
    bar = BarProgress(Console(file=out, force_terminal=False, width=200))
    bar.start(total=3, done=1, run="nightly")
    assert out.getvalue() == ""
    usage = Usage(input_tokens=10, output_tokens=5, cost_usd=0.01, calls=1)
    bar.advance("2", Judgment.ok(usage=usage))
    bar.advance("3", Judgment.error("model down", usage=usage))
    assert out.getvalue() == ""  # nothing until the end
    bar.finish()
    lines = out.getvalue().splitlines()
    assert len(lines) == 1
    assert lines[0].startswith("eval nightly ")
    assert "3/3" in lines[0]
    assert "items/s" in lines[0]
    assert lines[0].rstrip().endswith("errors 1, tokens 30, $0.0200")
    assert bar.run == "nightly"


def test_an_unknown_cost_is_said_to_be_unknown():
    out = io.StringIO()
    bar = BarProgress(Console(file=out, force_terminal=False, width=200))
    bar.start(total=1, done=0, run=None)
    bar.advance("1", Judgment.ok(usage=Usage(input_tokens=1, calls=1)))
    bar.finish()
    assert out.getvalue().startswith("eval ")
    assert "errors 0, tokens 1, cost unknown" in out.getvalue()
