"""Improvement cycles, tournaments and reputations for the viewer's tests, made through
jurist's own paths with `FakeModel`s: a real cycle that pauses for approval (its roles
answer as a cooperative panel whose evaluator finds a list only where the prompt asks for
one), and a real tournament recorded as `jurist tournament` records it."""

import asyncio
from collections.abc import Coroutine
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any, TypeVar

from jurist.autonomy import (
    AutonomyStore,
    Breakpoint,
    Case,
    CycleSpec,
    CycleStatus,
    JudgeVariant,
    Limits,
    LoopState,
    Pending,
    RoleModels,
    Technique,
    record_tournament,
    run_tournament,
    start_cycle,
)
from jurist.data import BinaryItem
from jurist.rubrics import Criterion
from jurist.server import ServiceSettings, create_app
from jurist.settings import Settings
from jurist.testing import FakeModel
from server.running import Running, run_app
from service_script import ServiceScript, scripted_model

INITIAL = "Name three metals the topic brings to mind."
IMPROVED = "Name three metals the topic brings to mind, as a bulleted list."
BULLETS = "- iron\n- tin\n- lead"
CRITERION = "The response is a bulleted list"
LABELS = {"c1": True, "c2": True, "c3": False, "c4": False}
T = TypeVar("T")


def run_apart(work: Coroutine[Any, Any, T]) -> T:
    """`asyncio.run(work)` in a thread of its own: a browser test's thread runs
    Playwright's event loop already, where asyncio.run is refused."""
    with ThreadPoolExecutor(1) as pool:
        return pool.submit(asyncio.run, work).result()


def _target(prompt: str) -> str:
    # The model under test sees only the case; the bullets come from the judge's reading.
    return BULLETS


def _panel(prompt: str) -> dict[str, object]:
    """Every role of the cycle, told apart by what its prompt asks for."""
    # The meta judge's request holds the analyst's root cause too: it is asked first.
    if '"decision"' in prompt:
        return {"decision": "continue", "reason": "The score improves."}
    if "improved_prompt" in prompt:
        return {
            "improved_prompt": IMPROVED,
            "techniques_used": ["explicit_instruction"],
            "rationale": "It says the format.",
            "intent_preserved": True,
        }
    if '{"findings"' in prompt:
        return {"findings": [{"kind": "ambiguity", "description": "How long?", "severity": "low"}]}
    if "root_cause" in prompt:
        return {
            "failure_type": "format_mismatch",
            "root_cause": "The prompt never asks for a list.",
            "hypotheses": ["Implicit format"],
            "suggestions": ["Ask for bullets"],
        }
    # The evaluator: the rewritten prompt is the one that asks for the list.
    said = "yes" if "bulleted list." in prompt else "no"
    return {"answer": said, "reason": f"scripted: {said}", "confidence": 0.9}


def cycle_spec() -> CycleSpec:
    return CycleSpec(
        prompt=INITIAL,
        criteria=[Criterion(name="list", description=CRITERION)],
        cases=[Case(id=f"c{i}", input=f"Topic {i}: metals.") for i in range(4)],
        limits=Limits(
            max_iterations=2,
            breakpoint=Breakpoint.EVERY,
            max_cost_usd=None,
            max_tokens=1_000_000,
        ),
    )


async def _paused_cycle(database: str, name: str) -> str:
    models = RoleModels(
        target=FakeModel(_target, name="fake:target"), judge=FakeModel(_panel, name="fake:judge")
    )
    async with await AutonomyStore.open(database) as store:
        outcome = await start_cycle(cycle_spec(), store, name=name, models=models)
    assert outcome.status is CycleStatus.PAUSED, outcome
    return outcome.cycle_id


def paused_cycle(database: str, name: str = "bullets") -> str:
    """A cycle run until it waits for approval of its first change; its id."""
    return run_apart(_paused_cycle(database, name))


def _mute_meta(prompt: str) -> object:
    # A meta judge that answers with no decision: each review fails, so each iteration does.
    return {"reason": "no decision"} if '"decision"' in prompt else _panel(prompt)


async def _failing_cycle(database: str, name: str) -> str:
    models = RoleModels(
        target=FakeModel(_target, name="fake:target"),
        judge=FakeModel(_mute_meta, name="fake:judge"),
    )
    async with await AutonomyStore.open(database) as store:
        outcome = await start_cycle(cycle_spec(), store, name=name, models=models)
    return outcome.cycle_id


def failing_cycle(database: str, name: str = "muted") -> str:
    """A cycle whose meta judge never decides: its iterations fail until the breaker on
    iterations ends it, with the prompt unchanged; its id."""
    return run_apart(_failing_cycle(database, name))


async def _keyed_cycle(database: str, name: str, key_id: str) -> str:
    # The service keeps the key that started a cycle; the loop itself runs from the command
    # line, so a key's cycle is made as the service would store it: paused with a change.
    async with await AutonomyStore.open(database) as store:
        cycle = await store.create_cycle(cycle_spec().model_dump(mode="json"), name, key_id=key_id)
        await store.append_event(cycle, "evaluation", "outputs", {"prompt": "baseline"})
        pending = Pending(
            prompt=IMPROVED,
            old_score=0.1,
            new_score=0.9,
            iteration=1,
            why="a big change",
            findings={},
        )
        state = LoopState(prompt=INITIAL, baseline_score=0.1, score=0.1, pending=pending)
        await store.update_cycle(cycle, CycleStatus.PAUSED, state.model_dump(mode="json"))
    return cycle


def keyed_cycle(database: str, name: str, key_id: str) -> str:
    """A paused cycle that the API key `key_id` started; its id."""
    return run_apart(_keyed_cycle(database, name, key_id))


def _verdicts(prompt: str) -> dict[str, object]:
    """Variant "right" agrees with the labels, "lenient" says yes to everything."""
    case = prompt.split("Output of case ", 1)[1].split(".", 1)[0]
    criterion = prompt.rstrip().rsplit("Criterion: ", 1)[1]
    said = LABELS[case] or criterion == "lenient"
    return {"answer": "yes" if said else "no", "reason": "scripted", "confidence": 0.9}


async def _tournament(database: str, name: str | None) -> str:
    variants = [
        JudgeVariant(id="lenient", technique=Technique.CUSTOM, criterion="lenient"),
        JudgeVariant(id="right", technique=Technique.CUSTOM, criterion="right"),
    ]
    cases = [
        BinaryItem(
            id=case, context="A refund policy.", output=f"Output of case {case}.", label=label
        )
        for case, label in LABELS.items()
    ]
    model = FakeModel(_verdicts, name="fake:panel")
    result = await run_tournament(variants, cases, model, samples=1, temperature=0.7)
    spec = {"ground_truth": "labelled.jsonl", "variants": [v.id for v in variants]}
    async with await AutonomyStore.open(database) as store:
        recorded = await record_tournament(store, result, spec=spec, name=name)
    return recorded.id


def tournament(database: str, name: str | None = None) -> str:
    """A tournament of two variants on four labelled cases, recorded; its run's id."""
    return run_apart(_tournament(database, name))


def serve_keyed(database: str, home: Path, keys: str) -> Running:
    """`jurist serve`'s application over `database` with the API keys `keys`
    (JURIST_API_KEYS' form), running; its viewer is at /view."""
    settings = Settings(JURIST_HOME=str(home), JURIST_CACHE="0", JURIST_DATABASE_URL=database)
    service = ServiceSettings(JURIST_API_KEYS=keys, JURIST_RATE_LIMIT="none", LOG_LEVEL="warning")
    return run_app(create_app(settings, service, model=scripted_model(ServiceScript())))
