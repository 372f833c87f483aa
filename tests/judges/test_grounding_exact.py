"""Grounding's exact checks: a number, month or name the source contradicts decides a claim
without the model; a negation or swapped roles against the model's quote overrides it."""

from grounding_script import claims_answer, routed_model, router, verdict_answer

from jurist.core import Context, Status
from jurist.judges import ClaimsReport, HallucinationJudge, Support

SOURCE = (
    "The council approved a 4 million dollar project in March. "
    "Smith visited Jones's training camp on Tuesday. The mayor did not attend."
)
TRUE = "The council approved the project in March."
WRONG_NUMBER = "The council approved a 40 million dollar project."
NEGATED = "The mayor attended."
SWAPPED = "Jones visited Smith's training camp."


def _context(*claims: str) -> Context:
    return Context("Summarise.", output=" ".join(claims), context=SOURCE)


def _judge(*claims: str, exact_checks: bool = True) -> tuple[HallucinationJudge, object]:
    model = routed_model(
        router(
            claims_answer(*claims),
            {
                TRUE: verdict_answer(0.9, "The council approved a 4 million dollar project"),
                WRONG_NUMBER: verdict_answer(0.9, "a 4 million dollar project"),
                NEGATED: verdict_answer(0.9, "The mayor did not attend."),
                SWAPPED: verdict_answer(0.9, "Smith visited Jones's training camp on Tuesday."),
            },
        )
    )
    return HallucinationJudge(model, exact_checks=exact_checks), model


async def test_a_number_the_source_states_otherwise_is_contradicted_without_the_model():
    judge, model = _judge(TRUE, WRONG_NUMBER)
    result = await judge.judge(_context(TRUE, WRONG_NUMBER))

    assert result.status is Status.FAIL
    report = ClaimsReport.of(result)
    assert report is not None
    row = next(row for row in report.claims if row.claim == WRONG_NUMBER)
    assert (row.verdict, row.method, row.p_supported) == (Support.CONTRADICTED, "exact", 0.0)
    assert row.exact is not None
    assert row.exact[0].claimed == "40 million dollar"
    (issue,) = result.metadata["issues"]
    assert "the claim says 40 million dollar; the source says 4 million dollar" in issue["message"]
    assert model.calls == 2  # the extraction and the one true claim: no call for the number


async def test_a_negation_or_swapped_roles_against_the_quote_overrides_the_model():
    judge, _ = _judge(NEGATED, SWAPPED)
    result = await judge.judge(_context(NEGATED, SWAPPED))

    report = ClaimsReport.of(result)
    assert report is not None
    checks = {row.claim: row for row in report.claims}
    assert [f.check for f in checks[NEGATED].exact or ()] == ["negation"]
    assert [f.check for f in checks[SWAPPED].exact or ()] == ["role"]
    assert not any(row.supported for row in report.claims)


async def test_exact_checks_are_one_switch_away():
    judge, model = _judge(TRUE, WRONG_NUMBER, NEGATED, exact_checks=False)
    result = await judge.judge(_context(TRUE, WRONG_NUMBER, NEGATED))

    assert result.status is Status.PASS  # the scripted model supports every claim
    assert model.calls == 4
