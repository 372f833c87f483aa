"""FactChecker against an in-memory retriever: retrieval per claim, the threshold, unknown
sources, and what an unverified fact reports."""

from collections.abc import Sequence

import pytest
from grounding_script import claims_answer, routed_model, router, verdict_answer

from jurist.core import Cause, Context, Status
from jurist.judges import (
    ClaimsReport,
    Extraction,
    FactChecker,
    FactsReport,
    Passage,
    Retriever,
    Support,
    UnknownSource,
)
from jurist.settings import Settings

TOWER = "The Eiffel Tower was completed in 1889 for the World's Fair."
BRIDGE = "The Golden Gate Bridge opened in 1937."
TRUE = "The Eiffel Tower was completed in 1889."
FALSE = "The Golden Gate Bridge opened in 1950."
NOWHERE = "Atlantis sank in 9600 BC."
# What the claims are drawn from: a claim the output does not state is dropped.
OUTPUT = f"{TRUE} {FALSE} {NOWHERE}"


class Shelf:
    """A retriever over a few passages: a passage matches when it shares a word of 5+ letters."""

    def __init__(self) -> None:
        self.passages = {
            "landmarks": [
                Passage(TOWER, "landmarks", "tower"),
                Passage(BRIDGE, "landmarks", "bridge"),
            ]
        }
        self.queries: list[tuple[str, tuple[str, ...]]] = []

    async def check_sources(self, sources: Sequence[str]) -> None:
        for source in sources:
            if source not in self.passages:
                raise UnknownSource(source, list(self.passages))

    async def retrieve(self, query: str, sources: Sequence[str], limit: int) -> list[Passage]:
        self.queries.append((query, tuple(sources)))
        words = {w.lower() for w in query.split() if len(w) >= 5}
        found = [
            p
            for name in (sources or list(self.passages))
            for p in self.passages[name]
            if words & {w.lower() for w in p.text.split()}
        ]
        return found[:limit]


def test_the_shelf_is_a_retriever():
    assert isinstance(Shelf(), Retriever)


def script():
    return router(
        claims_answer(TRUE, FALSE, NOWHERE),
        {
            TRUE: verdict_answer(0.95, TOWER),
            FALSE: verdict_answer(0.1, BRIDGE, "contradicted"),
        },
    )


async def test_each_claim_is_checked_against_the_passages_found_for_it():
    shelf = Shelf()
    model = routed_model(script())
    checker = FactChecker(shelf, model, sources=["landmarks"], threshold=0.8)
    result = await checker.judge(Context("Tell me about landmarks", output=OUTPUT))
    assert result.status is Status.FAIL
    assert result.metadata["total_claims"] == 3
    assert result.metadata["verified_claims"] == 1
    assert result.metadata["unverified_claims"] == 2
    assert {q for q, _ in shelf.queries} == {TRUE, FALSE, NOWHERE}
    assert all(sources == ("landmarks",) for _, sources in shelf.queries)
    issues = {issue["claim"]: issue for issue in result.metadata["issues"]}
    assert issues[FALSE]["type"] == "unverified_fact"
    assert issues[FALSE]["severity"] == "warning"
    assert "contradict" in issues[FALSE]["message"]
    assert list(issues[FALSE]["searched"]["documents"]) == ["landmarks/bridge"]
    # Nothing was found for Atlantis: reported, and no model call spent on it.
    assert "no passage" in issues[NOWHERE]["message"]
    assert not issues[NOWHERE]["searched"]["documents"]
    # Extraction and one verification: 1950 against the passage's 1937 is an exact mismatch,
    # decided without the model.
    assert model.calls == 2
    rows = {row["claim"]: row for row in result.metadata["claims"]}
    assert rows[FALSE]["method"] == "exact"
    assert rows[FALSE]["exact"][0]["claimed"] == "1950"
    assert rows[TRUE]["evidence_document"] == "landmarks/tower"
    assert result.confidence == pytest.approx(1 / 3)


async def test_the_threshold_comes_from_fact_check_threshold(monkeypatch):
    monkeypatch.setattr(
        "jurist.judges._facts.get_settings", lambda: Settings(FACT_CHECK_THRESHOLD="0.97")
    )
    checker = FactChecker(Shelf(), routed_model(script()), sources=["landmarks"])
    assert checker.threshold == 0.97
    result = await checker.judge(Context("q", output=OUTPUT))
    # P(supported) 0.95 no longer reaches the threshold.
    assert result.metadata["verified_claims"] == 0


async def test_sources_in_the_context_metadata_override_the_checkers():
    shelf = Shelf()
    checker = FactChecker(shelf, routed_model(script()), sources=["landmarks"])
    result = await checker.judge(
        Context("q", output=OUTPUT, metadata={"trusted_sources": ["atlantis-archive"]})
    )
    assert result.status is Status.ERROR
    assert result.metadata["cause"] == "unknown_source"
    assert result.metadata["source"] == "atlantis-archive"
    assert "atlantis-archive" in result.reasoning
    assert "landmarks" in result.reasoning


async def test_no_output_abstains_and_a_bad_sources_value_is_an_error():
    checker = FactChecker(Shelf(), routed_model(script()))
    assert (await checker.judge(Context("q"))).status is Status.ABSTAIN
    bad = await checker.judge(Context("q", output="x", metadata={"trusted_sources": [1]}))
    assert bad.status is Status.ERROR
    assert "trusted_sources" in bad.reasoning


def test_passages_must_be_positive():
    with pytest.raises(ValueError, match="passages"):
        FactChecker(Shelf(), passages=0)


async def test_the_facts_report_reads_typed():
    checker = FactChecker(Shelf(), routed_model(script()), sources=["landmarks"], threshold=0.8)
    result = await checker.judge(Context("Tell me about landmarks", output=OUTPUT))
    report = FactsReport.of(result)
    assert report is not None
    assert (report.threshold, report.sources) == (0.8, ("landmarks",))
    assert report.extraction is Extraction.MODEL
    assert (report.total_claims, report.verified_claims, report.unverified_claims) == (3, 1, 2)
    assert report.errored_claims == 0
    rows = {row.claim: row for row in report.claims}
    assert rows[TRUE].verified is True
    assert rows[TRUE].evidence_document == "landmarks/tower"
    assert [(p.collection, p.document) for p in rows[TRUE].passages] == [("landmarks", "tower")]
    assert rows[FALSE].verdict is Support.CONTRADICTED
    assert rows[NOWHERE].passages == ()
    issues = {issue.claim: issue for issue in report.issues}
    assert issues[FALSE].searched.documents == ("landmarks/bridge",)
    assert issues[FALSE].searched.sources == "landmarks"
    assert issues[NOWHERE].type == "unverified_fact"
    assert ClaimsReport.of(result) is None


async def test_an_unknown_source_is_an_error_whose_cause_is_typed_and_holds_no_report():
    checker = FactChecker(Shelf(), routed_model(script()), sources=["atlantis-archive"])
    result = await checker.judge(Context("q", output=OUTPUT))
    assert result.cause is Cause.UNKNOWN_SOURCE
    assert FactsReport.of(result) is None
