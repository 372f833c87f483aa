"""Calibration methods: the plain rubric (the floor) and consistency from checked claims,
read from judgments and run end to end with a scripted model."""

import json

import pytest

from jurist import Judgment, Usage
from jurist.calibration import ClaimConsistency, PlainRubric, calibrate, method_named
from jurist.data import load_labelled
from jurist.judges import (
    ClaimRow,
    ClaimsReport,
    CoverageReport,
    Extraction,
    FocusReport,
    QuoteMatch,
    StatementRow,
    Support,
)
from jurist.rubrics import get_rubric
from service_script import ServiceScript, scripted_model

SOURCE = "The bridge closes on Monday. Repairs take 14 weeks. Buses use Oak Street."


def claims_judgment(
    p_min: float,
    p_mean: float,
    supported: int,
    total: int,
    *,
    invented: int = 0,
    claims: tuple[ClaimRow, ...] = (),
) -> Judgment:
    report = ClaimsReport(
        mode="per_claim",
        extraction=Extraction.MODEL,
        total_claims=total,
        supported_claims=supported,
        unsupported_claims=total - supported,
        errored_claims=0,
        invented_quotes=invented,
        p_supported_min=p_min,
        p_supported_mean=p_mean,
        claims=claims,
    )
    return Judgment.ok(metadata=report.to_metadata(), usage=Usage(calls=3, latency_ms=4200.0))


@pytest.mark.parametrize(
    ("aggregate", "expected"), [("min", 1 + 4 * 0.1), ("mean", 1 + 4 * 0.6), ("share", 1 + 4 * 0.5)]
)
def test_claims_score_consistency_by_the_chosen_aggregate(aggregate, expected):
    reading = ClaimConsistency(aggregate).read(claims_judgment(0.1, 0.6, 1, 2))
    assert reading is not None
    assert reading.scores == {"consistency": pytest.approx(expected)}
    assert reading.seconds == pytest.approx(4.2)
    assert reading.signals["consistency.unsupported"] == 1.0


def test_no_claim_is_no_score_and_an_error_no_reading():
    method = ClaimConsistency()
    assert method.read(Judgment.abstain("no claim", metadata={"total_claims": 0})).scores == {
        "consistency": None
    }
    assert method.read(Judgment.error("model down")) is None


def test_methods_by_name_and_the_dimensions_they_score():
    assert isinstance(method_named("plain"), PlainRubric)
    assert method_named("claims:mean").aggregate == "mean"
    with pytest.raises(ValueError, match="one of"):
        method_named("vibes")
    with pytest.raises(ValueError, match="aggregate"):
        method_named("claims:median")
    rubric = get_rubric("summarization")
    with pytest.raises(ValueError, match="scores only \\['consistency'\\]"):
        ClaimConsistency().dimensions(rubric, ["coherence", "consistency"], ["coherence"])
    with pytest.raises(ValueError, match="none of which the dataset rates"):
        ClaimConsistency().dimensions(rubric, ["coherence"], [])


async def test_a_claims_calibration_reports_consistency_from_the_least_supported_claim(tmp_path):
    rows = []
    for i in range(8):
        rows.append(
            {
                "id": f"s{i}",
                "doc_id": f"d{i % 2}",
                "source": SOURCE,
                "output": f"The bridge closes on Monday. Repairs take 20 weeks. ({i})",
                "human_scores": {"consistency": 1 + (i % 5), "coherence": 3},
                "scale": [1, 5],
            }
        )
    path = tmp_path / "ratings.jsonl"
    path.write_text("\n".join(json.dumps(r) for r in rows))
    script = ServiceScript(
        claims=["The bridge closes on Monday.", "Repairs take 20 weeks."],
        support={
            "The bridge closes on Monday.": (0.9, "The bridge closes on Monday."),
            "Repairs take 20 weeks.": (0.2, "Repairs take 14 weeks."),
        },
    )
    done = await calibrate(
        load_labelled(path), "summarization", model=scripted_model(script), method="claims"
    )
    report = done.report
    assert list(report.dimensions) == ["consistency"]
    # One extraction and one model check per item: "20 weeks" against the source's 14 is an
    # exact mismatch, decided without the model.
    assert report.cost is not None
    assert report.cost.items == 8
    assert report.cost.calls == pytest.approx(2.0)
    assert "2.0 model calls" in report.to_markdown()
    assert report.judge.startswith("claims (consistency)")
    reading = ClaimConsistency().read(next(iter(done.run.judgments.values())))
    assert reading is not None
    p_min = reading.signals["consistency.p_min"]
    assert p_min <= 0.2 + 1e-9
    assert reading.scores["consistency"] == pytest.approx(1 + 4 * p_min)


async def test_coverage_scores_relevance_from_the_key_facts_the_output_keeps():
    from jurist import Context
    from jurist.judges import CoverageJudge

    facts = ["The bridge closes on Monday.", "Repairs take 14 weeks.", "Buses use Oak Street."]
    summary = "The bridge closes on Monday for 14 weeks of repairs."
    script = ServiceScript(
        claims=facts,
        support={
            facts[0]: (0.9, "The bridge closes on Monday"),
            facts[1]: (0.8, "14 weeks of repairs"),
            facts[2]: (0.1, "The bridge"),
        },
    )
    model = scripted_model(script)
    judge = CoverageJudge(model)
    first = await judge.judge(Context("Summarise.", output=summary, context=SOURCE))
    second = await judge.judge(
        Context("Summarise.", output="Buses use Oak Street.", context=SOURCE)
    )

    assert first.metadata["key_facts"] == 3
    assert first.metadata["covered_facts"] == 2
    assert first.score.normalized() == pytest.approx((0.9 + 0.8 + 0.1) / 3, abs=0.01)
    extractions = [r for r in model.requests if "most important facts" in r.messages[-1].content]
    assert len(extractions) == 1  # the source's key facts are found once for both summaries
    assert second.usage is not None

    reading = method_named("coverage").read(first)
    assert reading is not None
    assert reading.scores["relevance"] == pytest.approx(1 + 4 * first.metadata["p_covered_mean"])


def test_contradicted_verdicts_and_invented_quotes_are_signals_for_alignment():
    rows = tuple(
        ClaimRow(
            claim=f"c{i}",
            verdict=verdict,
            p_supported=None,
            supported=verdict is Support.SUPPORTED,
            quote="",
            quote_found=False,
            quote_match=QuoteMatch.NONE,
            evidence="",
            method="stated",
        )
        for i, verdict in enumerate(Support)
    )
    judgment = claims_judgment(0.1, 0.5, 1, 3, invented=1, claims=rows)
    reading = ClaimConsistency().read(judgment)
    assert reading is not None
    assert reading.signals["consistency.contradicted"] == 1.0
    assert reading.signals["consistency.invented_quotes"] == 1.0


def focus_fields(p_on_topic: list[float]) -> dict[str, object]:
    return {
        "statements_from": "model",
        "statements": tuple(
            StatementRow(statement=f"s{i}", p_on_topic=p, reason="", method="logprobs")
            for i, p in enumerate(p_on_topic)
        ),
        "p_on_topic_mean": sum(p_on_topic) / len(p_on_topic),
        "off_topic_statements": sum(1 for p in p_on_topic if p < 0.5),
        "on_topic_threshold": 0.5,
        "issues": (),
    }


def focus_metadata(p_on_topic: list[float]) -> dict[str, object]:
    fields = focus_fields(p_on_topic)
    return FocusReport(key_facts=4, extraction=Extraction.MODEL, **fields).to_metadata()


def test_focus_and_coverage_with_focus_read_relevance_by_name():
    assert method_named("coverage").off_topic is False
    assert method_named("coverage:focus").off_topic is True
    with pytest.raises(ValueError, match="coverage takes only the option 'focus'"):
        method_named("coverage:recall")
    with pytest.raises(ValueError, match="focus takes no option"):
        method_named("focus:3")

    focus = method_named("focus").read(
        Judgment.ok(metadata=focus_metadata([0.9, 0.3]), usage=Usage(calls=3, latency_ms=900.0))
    )
    assert focus is not None
    assert focus.scores == {"relevance": pytest.approx(1 + 4 * 0.6)}
    assert focus.signals == {
        "relevance.focus": pytest.approx(0.6),
        "relevance.statements": 2.0,
        "relevance.off_topic": 1.0,
    }
    assert focus.seconds == pytest.approx(0.9)

    both = Judgment.fail(
        metadata=CoverageReport(
            key_facts=4,
            extraction=Extraction.MODEL,
            facts=(),
            covered_facts=1,
            p_covered_mean=0.3,
            **focus_fields([0.9, 0.3]),
            relevance=0.4,
        ).to_metadata()
    )
    reading = method_named("coverage:focus").read(both)
    assert reading is not None
    # The combined relevance the judge decided on, not coverage alone.
    assert reading.scores == {"relevance": pytest.approx(1 + 4 * 0.4)}
    assert reading.signals["relevance.coverage"] == pytest.approx(0.3)
    assert reading.signals["relevance.focus"] == pytest.approx(0.6)
    assert reading.signals["relevance.covered_share"] == pytest.approx(0.25)


def test_focus_without_statements_is_no_score():
    reading = method_named("focus").read(Judgment.abstain("the output makes no statement"))
    assert reading is not None
    assert reading.scores == {"relevance": None}
    assert method_named("focus").read(Judgment.error("boom")) is None
