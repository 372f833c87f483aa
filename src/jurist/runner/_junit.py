"""A run as a JUnit XML report, the form CI systems (GitHub Actions' test reporters, GitLab,
Jenkins) show test results in: one test suite per judge, one test case per item.

A FAIL is a `<failure>` carrying the judgment's reasoning, an ERROR an `<error>` carrying
its cause (jurist could not decide: not a failing verdict), an ABSTAIN `<skipped>`. A jury's
or cascade's run has a suite for its verdict and one for each member's votes.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from pathlib import Path
from typing import IO
from xml.etree import ElementTree as ET

from jurist.core import Judgment, Status, normalized_score
from jurist.runner._columns import error_cause

# XML 1.0 has no form for most control characters, which a model's text may hold.
_NOT_XML = re.compile("[^\t\n\r\x20-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")
_MESSAGE_CHARS = 500


def junit_tree(
    name: str,
    judge: str,
    judgments: Mapping[str, Judgment],
    suites: Mapping[str, Mapping[str, Judgment]],
) -> ET.ElementTree[ET.Element]:
    """The report of a run named `name`: the suite of `judge`'s judgments by item, then
    `suites` (a member's name -> its judgments by item)."""
    root = ET.Element("testsuites", name=_clean(name))
    for suite_name, by_item in {judge: judgments, **suites}.items():
        root.append(_suite(suite_name, by_item))
    # The root carries the totals the common schema (Jenkins' junit-10.xsd) gives it:
    # skipped is counted per suite only.
    for total in ("tests", "failures", "errors"):
        root.set(total, str(sum(int(suite.get(total, "0")) for suite in root)))
    root.set("time", _seconds(sum(float(suite.get("time", "0")) for suite in root)))
    ET.indent(root)
    return ET.ElementTree(root)


def write_junit(tree: ET.ElementTree[ET.Element], target: str | Path | IO[bytes]) -> None:
    tree.write(target, encoding="utf-8", xml_declaration=True)


def _suite(name: str, judgments: Mapping[str, Judgment]) -> ET.Element:
    suite = ET.Element("testsuite", name=_clean(name))
    counts = dict.fromkeys(Status, 0)
    seconds = 0.0
    for item_id, judgment in judgments.items():
        counts[judgment.status] += 1
        latency = judgment.usage.latency_ms if judgment.usage else None
        seconds += (latency or 0.0) / 1000
        suite.append(_case(name, item_id, judgment, latency))
    suite.set("tests", str(len(judgments)))
    suite.set("failures", str(counts[Status.FAIL]))
    suite.set("errors", str(counts[Status.ERROR]))
    suite.set("skipped", str(counts[Status.ABSTAIN]))
    suite.set("time", _seconds(seconds))
    return suite


def _case(suite: str, item_id: str, judgment: Judgment, latency_ms: float | None) -> ET.Element:
    case = ET.Element(
        "testcase",
        name=_clean(item_id),
        classname=_clean(suite),
        time=_seconds((latency_ms or 0.0) / 1000),
    )
    reason = judgment.reasoning or judgment.status.value
    if judgment.status is Status.FAIL:
        failure = ET.SubElement(case, "failure", message=_message(reason), type="fail")
        failure.text = _clean(_details(judgment))
    elif judgment.status is Status.ERROR:
        error = ET.SubElement(case, "error", message=_message(reason), type=error_cause(judgment))
        error.text = _clean(_details(judgment))
    elif judgment.status is Status.ABSTAIN:
        ET.SubElement(case, "skipped", message=_message(f"abstained: {reason}"))
    return case


def _details(judgment: Judgment) -> str:
    lines = [judgment.reasoning or "(no reasoning given)"]
    score = normalized_score(judgment)
    if score is not None:
        lines.append(f"score: {score:.3f} (0..1)")
    lines += [
        f"check {check.name}: {'passed' if check.passed else 'failed'}"
        + (f": {check.message}" if check.message else "")
        for check in judgment.checks
    ]
    return "\n".join(lines)


def _message(text: str) -> str:
    text = " ".join(_clean(text).split())
    return text if len(text) <= _MESSAGE_CHARS else text[: _MESSAGE_CHARS - 1] + "…"


def _clean(text: str) -> str:
    return _NOT_XML.sub("\ufffd", text)


def _seconds(value: float) -> str:
    return f"{value:.3f}"
