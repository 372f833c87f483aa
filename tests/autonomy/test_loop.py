"""The improvement loop with scripted models: acceptance on held-back cases, rejection,
each circuit breaker, a budget refused before the call, a breakpoint that pauses the cycle
and resumes it after a restart, a malformed answer recorded with its field, and the
reputations the loop's rules move."""

import json
from dataclasses import dataclass, field

import pytest

from jurist.autonomy import (
    AutonomyStore,
    Breakpoint,
    Case,
    CycleSpec,
    CycleStatus,
    Limits,
    RoleModels,
    approve_cycle,
    outcome_of,
    resume_cycle,
    start_cycle,
)
from jurist.core import Cause
from jurist.llm import Request, Response
from jurist.rubrics import Criterion
from scripted import LOGPROB_CAPABILITIES, ScriptedModel, answer, with_logprobs

PROMPT = "Name three things the topic below brings to mind, in a short answer."
BETTER = (
    "Name three things the topic below brings to mind. Answer as a bulleted list, one per line."
)
SAME = "Name three things the topic below brings to mind, in a brief answer."
CRITERIA = [Criterion(name="list", description="The response is a bulleted list")]
CASES = [Case(id=f"c{i}", input=f"Topic {i}: metals.") for i in range(4)]


@dataclass
class World:
    """The model under test answers in bullets when its system prompt asks for a list; the
    judge's roles answer from these knobs."""

    rewrite: str = BETTER
    findings: list[dict] = field(default_factory=list)
    decision: str = "continue"
    analysis: dict | None = None
    degrade_after: int | None = None  # target calls after which it forgets the format
    calls: dict[str, int] = field(default_factory=dict)

    def count(self, what: str) -> None:
        self.calls[what] = self.calls.get(what, 0) + 1

    def target(self, request: Request) -> Response:
        self.count("target")
        system = request.messages[0].content if len(request.messages) > 1 else ""
        degraded = self.degrade_after is not None and self.calls["target"] > self.degrade_after
        bullets = "bulleted list" in system and not degraded
        return answer("- iron\n- tin\n- lead" if bullets else "iron, tin and lead")

    def judge(self, request: Request) -> Response:
        schema = request.json_schema or {}
        properties = schema.get("properties", {})
        prompt = request.messages[-1].content
        if "answer" in properties:
            self.count("evaluator")
            p_yes = 0.9 if "- iron" in prompt else 0.1
            said = "yes" if p_yes >= 0.5 else "no"
            return with_logprobs(
                '{"answer": "', (said, {"yes": p_yes, "no": 1 - p_yes}), '", "reason": "r"}'
            )
        if "root_cause" in properties:
            self.count("analyst")
            found = self.analysis or {
                "failure_type": "format",
                "root_cause": "The prompt never asks for a list.",
                "hypotheses": ["Implicit format"],
                "suggestions": ["Ask for bullets"],
            }
            return answer(json.dumps(found))
        if "improved_prompt" in properties:
            self.count("rewriter")
            return answer(
                json.dumps(
                    {
                        "improved_prompt": self.rewrite,
                        "techniques_used": ["explicit_instruction"],
                        "rationale": "Say the format.",
                        "intent_preserved": True,
                    }
                )
            )
        if "findings" in properties:
            self.count("adversarial")
            return answer(json.dumps({"findings": self.findings}))
        if "decision" in properties:
            self.count("meta")
            return answer(json.dumps({"decision": self.decision, "reason": "looks fine"}))
        raise AssertionError(f"an unexpected request: {properties}")

    def models(self) -> RoleModels:
        return RoleModels(
            target=ScriptedModel("test:target", [self.target] * 500),
            judge=ScriptedModel(
                "test:judge", [self.judge] * 500, capabilities=LOGPROB_CAPABILITIES
            ),
        )


def spec(**limits) -> CycleSpec:
    chosen = {"max_iterations": 2, "breakpoint": Breakpoint.NONE, **limits}
    return CycleSpec(prompt=PROMPT, criteria=CRITERIA, cases=CASES, limits=Limits(**chosen))


@pytest.fixture
async def store(tmp_path):
    async with await AutonomyStore.open(f"sqlite:///{tmp_path / 'cycles.sqlite3'}") as opened:
        yield opened


async def test_a_rewrite_that_scores_better_on_held_back_cases_is_accepted(store):
    world = World()
    said: list[str] = []
    outcome = await start_cycle(
        spec(), store, name="bullets", models=world.models(), on_event=said.append
    )

    assert outcome.status is CycleStatus.ACCEPTED
    assert outcome.prompt == BETTER
    assert outcome.baseline_score == pytest.approx(0.1)
    assert outcome.score == pytest.approx(0.9)
    assert outcome.iterations == 2  # the second proposal equals the prompt: rejected
    # Every call is booked once: the baseline's, each stage's, and nothing twice.
    models_called = world.calls["target"] + sum(
        n for role, n in world.calls.items() if role != "target"
    )
    assert outcome.usage.calls == models_called
    assert any("accepted" in line for line in said)

    events = await store.cycle_events(outcome.cycle_id)
    kinds = [e.kind for e in events]
    for kind in ("request:evaluate", "reply:analyze", "reply:rewrite", "reply:challenge"):
        assert kind in kinds
    verdicts = [e.message for e in events if e.kind == "verdict"]
    assert [v["accepted"] for v in verdicts] == [True, False]
    # The second verdict has two iterations of history to judge stability by.
    assert 0.0 <= verdicts[1]["stability"] <= 1.0
    stored = await store.get_cycle(outcome.cycle_id)
    history = stored.state["history"]
    assert [(r["iteration"], r["accepted"]) for r in history] == [(1, True), (2, False)]
    assert history[0]["improvement"] == pytest.approx(0.8)
    assert history[0]["agreement"] == 1.0  # the meta judge said continue, and it was accepted
    # Every message kept its protocol form and the cycle's correlation id.
    request = next(e.message for e in events if e.kind == "request:rewrite")
    assert request["version"] == "1.0"
    assert request["metadata"]["correlation_id"] == outcome.cycle_id

    rewriter = await store.get_reputation("rewriter@test:judge")
    assert rewriter is not None
    assert rewriter.score == pytest.approx(0.51)  # one successful improvement: +0.01
    assert outcome_of(await store.get_cycle("bullets")).prompt == BETTER


async def test_a_rewrite_that_does_not_help_is_rejected(store):
    world = World(rewrite=SAME)
    outcome = await start_cycle(spec(), store, models=world.models())

    assert outcome.status is CycleStatus.REJECTED
    assert outcome.prompt == PROMPT
    assert outcome.score == pytest.approx(0.1)
    assert "2 iterations" in (outcome.reason or "") or "iteration" in (outcome.reason or "")


async def test_a_significant_change_pauses_until_approved_and_resumes_after_a_restart(tmp_path):
    url = f"sqlite:///{tmp_path / 'cycles.sqlite3'}"
    world = World()
    async with await AutonomyStore.open(url) as store:
        paused = await start_cycle(
            spec(breakpoint=Breakpoint.SIGNIFICANT_CHANGE),
            store,
            name="gated",
            models=world.models(),
        )
    assert paused.status is CycleStatus.PAUSED
    assert paused.prompt == PROMPT  # not yet applied
    assert paused.pending is not None
    assert paused.pending["prompt"] == BETTER

    async with await AutonomyStore.open(url) as store:  # a new process, say
        with pytest.raises(ValueError, match="waits for approval"):
            await resume_cycle(store, "gated", models=world.models())
        await approve_cycle(store, "gated", approve=True, note="looks right")
        with pytest.raises(ValueError, match="not paused"):
            await approve_cycle(store, "gated", approve=True)
        done = await resume_cycle(store, "gated", models=world.models())
        events = await store.cycle_events(done.cycle_id)

    assert done.status is CycleStatus.ACCEPTED
    assert done.prompt == BETTER
    assert done.iterations == 2
    assert done.usage.calls == sum(world.calls.values())  # across the pause and the restart
    assert done.reason is not None
    human = [e.message for e in events if e.kind == "human"]
    assert human == [{"decision": "approved", "note": "looks right", "iteration": 1}]


async def test_a_rejected_change_keeps_the_prompt(store):
    world = World()
    await start_cycle(
        spec(breakpoint=Breakpoint.EVERY, max_iterations=1),
        store,
        name="gated",
        models=world.models(),
    )
    await approve_cycle(store, "gated", approve=False)
    done = await resume_cycle(store, "gated", models=world.models())
    assert done.prompt == PROMPT
    assert done.status is CycleStatus.REJECTED


async def test_the_budget_halts_the_cycle_before_a_call_it_cannot_cover(store):
    # The scripted calls use 15 tokens each, but an analysis may use its whole max_tokens
    # (about 1,000 tokens at worst): a budget of 700 covers the evaluations, never that.
    world = World()
    outcome = await start_cycle(spec(max_tokens=700), store, models=world.models())

    assert outcome.status is CycleStatus.HALTED
    assert "budget" in (outcome.reason or "")
    assert "token" in (outcome.reason or "")
    assert world.calls["evaluator"] == 4
    assert "analyst" not in world.calls  # refused before it was asked
    assert outcome.usage.total_tokens <= 700


async def test_consecutive_constraint_violations_trip_the_breaker_and_cost_reputation(store):
    world = World(rewrite="x")  # far shorter than 1/1.5 of the prompt
    outcome = await start_cycle(
        spec(max_iterations=10, max_consecutive_failures=2), store, models=world.models()
    )

    assert outcome.status is CycleStatus.HALTED
    assert "consecutive" in (outcome.reason or "")
    assert outcome.iterations == 2
    rewriter = await store.get_reputation("rewriter@test:judge")
    assert rewriter is not None
    assert rewriter.score == pytest.approx(0.5 - 2 * 0.05)
    assert [c.event for c in rewriter.history] == ["constitutional_violation"] * 2


async def test_a_malformed_answer_is_recorded_with_its_field(store):
    world = World(analysis={"failure_type": "format", "hypotheses": ["h"], "suggestions": ["s"]})
    outcome = await start_cycle(spec(max_iterations=1), store, models=world.models())

    events = await store.cycle_events(outcome.cycle_id)
    failure = next(e.message for e in events if e.kind == "failure:analyze")
    assert failure["cause"] == "unparseable"
    assert "root_cause" in failure["detail"]
    assert outcome.status is CycleStatus.REJECTED
    assert world.calls.get("rewriter", 0) == 0


async def test_a_failed_iteration_is_recorded_with_its_cause_and_what_failed(store):
    world = World(rewrite="x")  # far shorter than 1/1.5 of the prompt
    outcome = await start_cycle(spec(max_iterations=1), store, models=world.models())

    events = await store.cycle_events(outcome.cycle_id)
    failed = next(e.message for e in events if e.kind == "iteration_failed")
    assert Cause(failed["cause"]) is Cause.CONSTRAINT
    assert failed["iteration"] == 1
    assert failed["detail"].startswith("the rewriter failed (constraint_violation): ")


async def test_adversarial_findings_past_the_bound_halt_the_cycle(store):
    high = {"kind": "gaming", "description": "Answer with any list.", "severity": "high"}
    world = World(rewrite=SAME, findings=[high] * 3)
    outcome = await start_cycle(
        spec(max_iterations=5, max_adversarial_findings=5), store, models=world.models()
    )
    assert outcome.status is CycleStatus.HALTED
    assert "adversarial" in (outcome.reason or "") or "finding" in (outcome.reason or "")
    adversarial = await store.get_reputation("adversarial@test:judge")
    assert adversarial is not None
    assert adversarial.score > 0.5  # it warned about proposals the held-back cases rejected


async def test_the_meta_judge_can_halt_a_failing_cycle(store):
    world = World(rewrite=SAME, decision="halt")
    outcome = await start_cycle(spec(max_iterations=5), store, models=world.models())
    assert outcome.status is CycleStatus.HALTED
    assert "meta judge" in (outcome.reason or "")
    assert outcome.iterations == 1
    assert outcome.usage.calls == sum(world.calls.values())
    meta = await store.get_reputation("meta@test:judge")
    assert meta is not None
    assert meta.score == pytest.approx(0.505)  # its halt agreed with the rejection


async def test_the_rewriter_is_shown_the_proposals_already_rejected(store):
    world = World(rewrite=SAME)
    judge_requests: list[Request] = []
    models = world.models()
    recorded = models.judge

    def watch(request: Request) -> Response:
        judge_requests.append(request)
        return world.judge(request)

    recorded.script = [watch] * 500
    await start_cycle(spec(max_iterations=2), store, models=models)
    rewrites = [r for r in judge_requests if "improved_prompt" in str(r.json_schema)]
    assert len(rewrites) == 2
    assert "Already tried and rejected" not in rewrites[0].messages[-1].content
    assert SAME in rewrites[1].messages[-1].content.split("Already tried and rejected")[1]
    # ... and, to keep it from writing the same again, it samples from then on.
    assert rewrites[0].temperature == 0.0
    assert rewrites[1].temperature == 0.7
    assert rewrites[1].seed is not None


async def test_a_prompt_whose_held_out_score_drifts_down_trips_the_regression_breaker(store):
    # Baseline (2 calls) and iteration 1 (2 rewriting cases, 2 candidate, 2 current): after
    # that the model under test stops following the format it was asked for.
    world = World(degrade_after=8)
    outcome = await start_cycle(
        spec(max_iterations=5, max_regression=0.3), store, models=world.models()
    )
    assert outcome.status is CycleStatus.HALTED
    assert "regression" in (outcome.reason or "") or "fell" in (outcome.reason or "")
    assert outcome.prompt == BETTER  # what was accepted stays accepted
    assert outcome.score == pytest.approx(0.1)  # ... and its score now, measured again


async def test_a_meta_halt_after_an_accepted_change_keeps_the_change(store):
    world = World(decision="halt")
    outcome = await start_cycle(spec(max_iterations=5), store, models=world.models())
    assert outcome.status is CycleStatus.HALTED
    assert outcome.prompt == BETTER
    assert outcome.iterations == 1
    stored = await store.get_cycle(outcome.cycle_id)
    assert [r["accepted"] for r in stored.state["history"]] == [True]


async def test_two_decisions_taken_at_once_record_one(store):
    import asyncio

    world = World()
    await start_cycle(
        spec(breakpoint=Breakpoint.EVERY, max_iterations=1),
        store,
        name="gated",
        models=world.models(),
    )
    results = await asyncio.gather(
        approve_cycle(store, "gated", approve=True),
        approve_cycle(store, "gated", approve=False),
        return_exceptions=True,
    )
    refused = [r for r in results if isinstance(r, ValueError)]
    assert len(refused) == 1
    assert "not paused" in str(refused[0]) or "any more" in str(refused[0])
    cycle = await store.get_cycle("gated")
    events = await store.cycle_events(cycle.id)
    assert len([e for e in events if e.kind == "human"]) == 1
