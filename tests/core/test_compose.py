"""Composition: how PASS, FAIL, ABSTAIN and ERROR combine, and short-circuiting."""

import itertools

import pytest

from jurist import (
    BaseJudge,
    Context,
    Judge,
    JudgeKind,
    Judgment,
    Status,
    Usage,
    all_of,
    any_of,
    judge,
    judge_sync,
    named,
    not_,
)

CTX = Context("goal", output="hello world")


class Fixed(BaseJudge):
    """Returns a fixed status and records that it ran."""

    def __init__(self, status: Status, name: str, kind: JudgeKind = JudgeKind.DETERMINISTIC):
        super().__init__(name)
        self.status = status
        self.kind = kind
        self.calls = 0

    async def judge(self, ctx: Context) -> Judgment:
        self.calls += 1
        if self.status is Status.ERROR:
            raise RuntimeError(f"{self.name} broke")
        return Judgment(
            self.status,
            reasoning=f"{self.name} says {self.status.value}",
            usage=Usage(10, 1, 0.01, "m"),
        )


def fixed(*statuses: Status) -> list[Fixed]:
    return [Fixed(s, f"j{i}") for i, s in enumerate(statuses)]


def expected_all_of(statuses):
    if Status.FAIL in statuses:
        return Status.FAIL
    if Status.ERROR in statuses:
        return Status.ERROR
    if Status.ABSTAIN in statuses:
        return Status.ABSTAIN
    return Status.PASS


def expected_any_of(statuses):
    if Status.PASS in statuses:
        return Status.PASS
    if Status.ERROR in statuses:
        return Status.ERROR
    if Status.ABSTAIN in statuses:
        return Status.ABSTAIN
    return Status.FAIL


ALL_PAIRS_AND_TRIPLES = [
    combo for n in (1, 2, 3) for combo in itertools.product(list(Status), repeat=n)
]


@pytest.mark.parametrize("statuses", ALL_PAIRS_AND_TRIPLES)
def test_all_of_combination_table(statuses):
    assert judge_sync(all_of(*fixed(*statuses)), CTX).status is expected_all_of(statuses)


@pytest.mark.parametrize("statuses", ALL_PAIRS_AND_TRIPLES)
def test_any_of_combination_table(statuses):
    assert judge_sync(any_of(*fixed(*statuses)), CTX).status is expected_any_of(statuses)


def test_all_of_stops_at_first_fail():
    first, second, third = fixed(Status.PASS, Status.FAIL, Status.PASS)
    result = judge_sync(all_of(first, second, third), CTX)
    assert result.status is Status.FAIL
    assert (first.calls, second.calls, third.calls) == (1, 1, 0)
    assert list(result.metadata["skipped"]) == ["j2"]
    assert "j1" in result.reasoning


def test_all_of_does_not_stop_at_error_since_a_later_fail_decides():
    broken, failing = fixed(Status.ERROR, Status.FAIL)
    assert judge_sync(all_of(broken, failing), CTX).status is Status.FAIL
    assert failing.calls == 1


def test_any_of_stops_at_first_pass():
    first, second, third = fixed(Status.FAIL, Status.PASS, Status.FAIL)
    result = judge_sync(any_of(first, second, third), CTX)
    assert result.status is Status.PASS
    assert third.calls == 0


def test_sub_judgments_are_kept_as_checks_with_their_causes():
    result = judge_sync(all_of(*fixed(Status.PASS, Status.ERROR)), CTX)
    assert [(c.name, c.passed) for c in result.checks] == [("j0", True), ("j1", False)]
    assert "RuntimeError" in result.checks[1].message
    assert "j1 broke" in result.reasoning
    assert dict(result.metadata["statuses"]) == {"j0": "pass", "j1": "error"}


def test_usage_is_summed_over_sub_judgments():
    result = judge_sync(all_of(*fixed(Status.PASS, Status.PASS)), CTX)
    assert result.usage == Usage(20, 2, 0.02, "m")


def test_operators_build_flat_compositions():
    a, b, c = fixed(Status.PASS, Status.PASS, Status.FAIL)
    both = a & b & c
    assert [j.name for j in both.judges] == ["j0", "j1", "j2"]
    assert judge_sync(both, CTX).status is Status.FAIL
    either = a | c
    assert judge_sync(either, CTX).status is Status.PASS
    assert judge_sync(~c, CTX).status is Status.PASS


def test_named_compositions_are_not_flattened():
    a, b, c = fixed(Status.PASS, Status.PASS, Status.PASS)
    inner = all_of(a, b, name="inner")
    outer = all_of(inner, c)
    assert [j.name for j in outer.judges] == ["inner", "j2"]


def test_not_swaps_pass_and_fail_and_keeps_the_rest():
    for status, flipped in [
        (Status.PASS, Status.FAIL),
        (Status.FAIL, Status.PASS),
        (Status.ABSTAIN, Status.ABSTAIN),
        (Status.ERROR, Status.ERROR),
    ]:
        assert judge_sync(not_(Fixed(status, "x")), CTX).status is flipped


def test_named_renames_and_keeps_kind():
    inner = Fixed(Status.PASS, "x", JudgeKind.MODEL)
    wrapped = named(inner, "tone", "is the tone polite")
    assert (wrapped.name, wrapped.description, wrapped.kind) == (
        "tone",
        "is the tone polite",
        JudgeKind.MODEL,
    )
    assert judge_sync(wrapped, CTX).passed
    with pytest.raises(ValueError, match="non-empty"):
        named(inner, "")


def test_kind_of_a_composition():
    det = Fixed(Status.PASS, "a")
    model = Fixed(Status.PASS, "b", JudgeKind.MODEL)
    assert all_of(det, det).kind is JudgeKind.DETERMINISTIC
    assert all_of(det, model).kind is JudgeKind.HYBRID


def test_composition_needs_judges():
    with pytest.raises(ValueError, match="at least one"):
        all_of()
    with pytest.raises(TypeError, match="not a judge"):
        any_of("not a judge")  # type: ignore[arg-type]


def test_decorator_sync_and_async_functions():
    @judge
    def mentions_world(ctx: Context) -> bool:
        """Output mentions the world."""
        return "world" in ctx.output_text()

    @judge(name="short", kind=JudgeKind.HYBRID)
    async def short(ctx: Context) -> Judgment:
        return Judgment.ok("short enough") if len(ctx.output_text()) < 5 else Judgment.fail("long")

    assert mentions_world.name == "mentions_world"
    assert mentions_world.description == "Output mentions the world."
    assert isinstance(mentions_world, Judge)
    assert judge_sync(mentions_world, CTX).passed
    assert not judge_sync(mentions_world, Context("g", output="nothing")).passed
    assert short.kind is JudgeKind.HYBRID
    assert judge_sync(short, CTX).reasoning == "long"
    assert judge_sync(mentions_world & short, CTX).status is Status.FAIL


def test_decorated_function_with_a_wrong_return_type_is_an_error():
    @judge
    def sloppy(ctx: Context) -> bool:
        return "yes"  # type: ignore[return-value]

    result = judge_sync(sloppy, CTX)
    assert result.status is Status.ERROR
    assert "returned a str" in result.reasoning


def test_judges_with_the_same_name_keep_separate_results():
    first, second = Fixed(Status.PASS, "same"), Fixed(Status.ABSTAIN, "same")
    result = judge_sync(all_of(first, second), CTX)
    assert dict(result.metadata["statuses"]) == {"same": "pass", "same#2": "abstain"}
    assert [c.name for c in result.checks] == ["same", "same#2"]
