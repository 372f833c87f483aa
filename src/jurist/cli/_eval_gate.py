"""`jurist eval`'s gate for CI: `--fail-under RATE` and the `--junit FILE` report."""

import math
from dataclasses import dataclass
from pathlib import Path

from jurist.cli._exit import Exit
from jurist.cli._inputs import BadInput, exit_bad_input
from jurist.runner import RunResult, RunSummary


def parse_rate(text: str) -> float:
    """`0.9` or `90%`: the lowest pass rate that passes, as a fraction in 0..1."""
    raw = text.strip()
    percent = raw.endswith("%")
    try:
        value = float(raw.removesuffix("%").strip())
    except ValueError:
        value = math.nan
    if not math.isfinite(value):
        raise BadInput(
            f"--fail-under: {text!r} is not a rate: write a fraction (0.9) or a percentage (90%)"
        )
    rate = value / 100 if percent else value
    if not 0 <= rate <= 1:
        hint = (
            f"; for {value:g} percent write {value:g}%" if not percent and 1 < value <= 100 else ""
        )
        raise BadInput(f"--fail-under: {text!r} is not between 0 and 1 (or 0% and 100%){hint}")
    return rate


def ci_options(fail_under: str | None, junit: Path | None) -> float | None:
    """The --fail-under threshold, once both options are known to be usable (BadInput)."""
    if junit is not None:
        _check_junit(junit)
    return None if fail_under is None else parse_rate(fail_under)


def ci_report(result: RunResult, junit: Path | None, threshold: float | None) -> "Gate | None":
    """Write the JUnit report (exit 2 when it cannot be written); the gate, if one is set."""
    if junit is not None:
        try:
            result.to_junit(junit)
        except OSError as exc:
            exit_bad_input(BadInput(f"--junit: cannot write {junit}: {exc.strerror or exc}"))
    return None if threshold is None else Gate(threshold, result.summary)


def _check_junit(path: Path) -> None:
    """Make the report's directory (as CI jobs expect), and refuse before a long run a
    report that could not be written at its end."""
    if path.is_dir():
        raise BadInput(f"--junit: {path} is a directory; name the .xml file to write")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise BadInput(
            f"--junit: {path}: cannot make its directory: {exc.strerror or exc}"
        ) from exc


@dataclass(frozen=True)
class Gate:
    """The pass rate against `--fail-under`: it passes at or above the threshold."""

    threshold: float
    summary: RunSummary

    @property
    def pass_rate(self) -> float | None:
        return self.summary.pass_rate

    @property
    def passed(self) -> bool | None:
        """None when no item was decided (all ERROR or ABSTAIN): there is no rate to gate."""
        return None if self.pass_rate is None else self.pass_rate >= self.threshold

    def message(self) -> str:
        summary = self.summary
        decided = summary.counts.get("pass", 0) + summary.counts.get("fail", 0)
        if self.pass_rate is None:
            return (
                f"gate: no item was decided (pass or fail), so there is no pass rate to hold "
                f"to --fail-under {self.threshold:.1%}"
            )
        rate = (
            f"pass rate {self.pass_rate:.1%} ({summary.counts.get('pass', 0)} of {decided} decided)"
        )
        if self.passed:
            return f"gate: {rate} meets --fail-under {self.threshold:.1%}"
        return f"gate: {rate} is below --fail-under {self.threshold:.1%}: failed"

    def to_dict(self) -> dict[str, object]:
        return {"fail_under": self.threshold, "pass_rate": self.pass_rate, "passed": self.passed}


def exit_for(summary: RunSummary, gate: Gate | None) -> Exit:
    """1 when the gate failed (a verdict on the decided items, whatever else went wrong);
    else 3 when some item is ERROR or no item was decided under a gate; else 0."""
    if gate is not None and gate.passed is False:
        return Exit.FAIL
    if summary.errors or (gate is not None and gate.passed is None):
        return Exit.UNDECIDED
    return Exit.PASS
