"""Grounding on the default embedded model, for real, on the kinds of error a small model
lets through when asked plainly: a wrong number, who did what swapped, background claims the
output never made, and quotes from lower-cased, tokenized text."""

from pathlib import Path

import pytest

from jurist.core import Context, Status
from jurist.judges import ClaimsReport, HallucinationJudge
from jurist.llm._get_model import get_model
from jurist.settings import Settings

EXAMPLES = Path(__file__).parents[2] / "examples"


@pytest.fixture(scope="module")
def judge() -> HallucinationJudge:
    shared_models = Settings().models_dir
    settings = Settings(JURIST_MODELS_DIR=str(shared_models), JURIST_CACHE="0")
    return HallucinationJudge(get_model("local:qwen2.5-1.5b", settings=settings))


async def _report(judge: HallucinationJudge, output: str, source: str) -> ClaimsReport:
    result = await judge.judge(Context("Summarise the article.", output=output, context=source))
    assert result.status in (Status.PASS, Status.FAIL), result.reasoning
    report = ClaimsReport.of(result)
    assert report is not None
    return report


async def test_the_readmes_planted_wrong_number_is_caught(judge):
    summary = (EXAMPLES / "summary.txt").read_text()
    article = (EXAMPLES / "article.txt").read_text()
    report = await _report(judge, summary, article)

    wrong = [row for row in report.claims if "40 million" in row.claim]
    assert wrong, [row.claim for row in report.claims]
    assert all(not row.supported for row in wrong)
    assert any(
        "40 million" in f.claimed and "4 million" in f.found
        for row in wrong
        for f in row.exact or ()
    )


async def test_who_did_what_swapped_is_not_supported(judge):
    source = (
        "Arsenal manager Mikel Arteta visited the training camp of Bayern coach Vincent "
        "Kompany on Tuesday. Kompany showed him the new pitches."
    )
    swapped = "Kompany visited the training camp of Arteta on Tuesday."
    report = await _report(judge, swapped, source)

    assert report.claims
    assert not any(row.supported for row in report.claims), report.claims


async def test_a_faithful_one_line_summary_is_not_failed_for_background_claims(judge):
    source = (
        "Washington suspended arms-control talks with Russia on Monday, citing the war in "
        "Ukraine. The US said the talks could resume once the fighting stops."
    )
    output = "The US suspended talks with Russia over the war."
    report = await _report(judge, output, source)

    assert report.claims
    assert report.unsupported_claims == 0, report.claims


async def test_quotes_from_lower_cased_tokenized_text_are_found(judge):
    source = (
        "qpr 's 3-3 draw with west brom on saturday left them in the relegation zone . "
        "charlie austin scored twice for the hosts ."
    )
    output = "charlie austin scored twice in qpr 's 3-3 draw with west brom ."
    report = await _report(judge, output, source)

    assert report.claims
    assert all(row.quote_found for row in report.claims if row.supported)
    assert report.unsupported_claims == 0, report.claims
