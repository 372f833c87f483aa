"""SourceCountJudge's report: the distinct sources it counted, typed."""

from jurist.core import Context
from jurist.judges import ClaimsReport, SourceCountJudge, SourcesReport
from jurist.judges._sources import LISTED_SOURCES


async def test_the_sources_report_reads_typed():
    text = "See https://a.example/x, https://a.example/x and [1]."
    result = await SourceCountJudge(3).judge(Context("q", output=text))
    report = SourcesReport.of(result)
    assert report == SourcesReport(count=2, min_sources=3, sources=("https://a.example/x", "[1]"))
    assert result.metadata["report"] == "sources"
    assert ClaimsReport.of(result) is None


async def test_the_report_lists_the_first_sources_and_counts_them_all():
    text = " ".join(f"[{n}]" for n in range(1, LISTED_SOURCES + 6))
    report = SourcesReport.of(await SourceCountJudge().judge(Context("q", output=text)))
    assert report is not None
    assert report.count == LISTED_SOURCES + 5
    assert len(report.sources) == LISTED_SOURCES
    assert report.sources[0] == "[1]"
