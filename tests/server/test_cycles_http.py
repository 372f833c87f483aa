"""GET /cycles, GET /cycles/{id} and POST /cycles/{id}/approve over real HTTP: cycles read
from the service's own database, a decision recorded on a paused cycle only, 404 and 409."""

import asyncio

import pytest

from jurist.autonomy import (
    AutonomyStore,
    Case,
    CycleSpec,
    CycleStatus,
    LoopState,
    Pending,
)
from jurist.core import Usage
from jurist.rubrics import Criterion
from jurist.server import new_key

INITIAL = "You answer questions."
PROPOSED = "You answer questions, briefly."
SPEC = CycleSpec(
    prompt=INITIAL,
    criteria=[Criterion(name="fine", description="The answer is fine")],
    cases=[Case(id="a", input="Question a?"), Case(id="b", input="Question b?")],
)


def stored_cycle(database: str, name: str, *, paused: bool) -> str:
    """A cycle as the loop leaves it: one message stored, and, when `paused`, a change
    waiting for approval."""

    async def write() -> str:
        async with await AutonomyStore.open(database) as store:
            cycle = await store.create_cycle(SPEC.model_dump(mode="json"), name=name)
            await store.append_event(
                cycle,
                "evaluation",
                "outputs",
                {"prompt": "baseline", "outputs": [{"case": "a", "output": "x", "error": None}]},
                Usage(input_tokens=10, output_tokens=5, calls=1),
            )
            pending = Pending(
                prompt=PROPOSED,
                old_score=0.2,
                new_score=0.9,
                iteration=1,
                why="held-out score rose 0.700",
                findings={},
            )
            state = LoopState(
                prompt=INITIAL, baseline_score=0.2, score=0.2, pending=pending if paused else None
            )
            status = CycleStatus.PAUSED if paused else CycleStatus.RUNNING
            await store.update_cycle(cycle, status, state.model_dump(mode="json"))
            return cycle

    return asyncio.run(write())


def test_cycles_are_listed_newest_first_and_read_with_every_message(serve, database):
    running = serve()
    older = stored_cycle(database, "older", paused=False)
    newer = stored_cycle(database, "newer", paused=True)
    with running.client() as client:
        listed = client.get("/cycles")
        assert listed.status_code == 200, listed.text
        assert [(c["id"], c["name"], c["status"]) for c in listed.json()] == [
            (newer, "newer", "paused"),
            (older, "older", "running"),
        ]
        paused = client.get("/cycles", params={"status": "paused"}).json()
        assert [c["id"] for c in paused] == [newer]
        assert [c["id"] for c in client.get("/cycles", params={"limit": 1}).json()] == [newer]

        detail = client.get("/cycles/newer")  # by name, or by id
        assert detail.status_code == 200, detail.text
        body = detail.json()
        assert body == client.get(f"/cycles/{newer}").json()
        assert body["status"] == "paused"
        assert (body["initial_prompt"], body["prompt"]) == (INITIAL, INITIAL)
        assert body["pending"]["prompt"] == PROPOSED
        assert body["pending"]["new_score"] == 0.9
        assert body["spec"]["criteria"] == [
            {"name": "fine", "description": "The answer is fine", "weight": 1.0}
        ]
        assert [(e["seq"], e["stage"], e["kind"]) for e in body["events"]] == [
            (1, "evaluation", "outputs")
        ]
        assert body["events"][0]["input_tokens"] == 10

        assert client.get("/cycles", params={"status": "sleeping"}).status_code == 422


def test_approving_records_the_decision_only_and_only_on_a_paused_cycle(serve, database):
    running = serve()
    paused = stored_cycle(database, "waiting", paused=True)
    other = stored_cycle(database, "busy", paused=False)
    with running.client() as client:
        approved = client.post(
            f"/cycles/{paused}/approve", json={"approve": True, "note": "looks right"}
        )
        assert approved.status_code == 200, approved.text
        body = approved.json()
        # Ready to go on, with the change in effect: the CLI resumes it.
        assert body["status"] == "running"
        assert body["pending"] is None
        assert body["score"] == 0.9
        assert body["iterations"] == 1
        events = client.get(f"/cycles/{paused}").json()["events"]
        assert events[-1]["kind"] == "human"
        assert events[-1]["message"] == {
            "decision": "approved",
            "note": "looks right",
            "iteration": 1,
        }
        assert client.get(f"/cycles/{paused}").json()["prompt"] == PROPOSED

        again = client.post(f"/cycles/{paused}/approve", json={"approve": True})
        assert again.status_code == 409
        assert again.json()["error"] == "not_paused"
        assert "not paused" in again.json()["message"]
        running_one = client.post(f"/cycles/{other}/approve", json={"approve": False})
        assert running_one.status_code == 409


def test_a_rejected_change_leaves_the_prompt_as_it_was(serve, database):
    running = serve()
    stored_cycle(database, "waiting", paused=True)
    with running.client() as client:
        rejected = client.post("/cycles/waiting/approve", json={"approve": False})
        assert rejected.status_code == 200, rejected.text
        assert rejected.json()["score"] == 0.2
        detail = client.get("/cycles/waiting").json()
        assert detail["prompt"] == INITIAL
        assert detail["events"][-1]["message"]["decision"] == "rejected"


@pytest.mark.parametrize(
    ("method", "path", "body"),
    [
        ("GET", "/cycles/nope", None),
        ("POST", "/cycles/nope/approve", {"approve": True}),
    ],
)
def test_an_unknown_cycle_is_404(serve, method, path, body):
    with serve().client() as client:
        answer = client.request(method, path, json=body)
    assert answer.status_code == 404
    assert answer.json()["error"] == "not_found"
    assert "nope" in answer.json()["message"]


def test_a_malformed_decision_is_422_naming_the_field(serve, database):
    running = serve()
    paused = stored_cycle(database, "waiting", paused=True)
    with running.client() as client:
        missing = client.post(f"/cycles/{paused}/approve", json={"note": "why not"})
        extra = client.post(f"/cycles/{paused}/approve", json={"approve": True, "by": "me"})
        long = client.post(f"/cycles/{paused}/approve", json={"approve": True, "note": "x" * 3000})
        assert client.get(f"/cycles/{paused}").json()["status"] == "paused"  # none recorded
    assert missing.status_code == 422
    assert [e["field"] for e in missing.json()["errors"]] == ["approve"]
    assert extra.status_code == 422
    assert [e["field"] for e in extra.json()["errors"]] == ["by"]
    assert long.status_code == 422
    assert [e["field"] for e in long.json()["errors"]] == ["note"]


def test_with_api_keys_the_cycles_need_one(serve, database):
    secret, _ = new_key()
    running = serve(config={"JURIST_API_KEYS": f"ops:admin:{secret}"})
    paused = stored_cycle(database, "waiting", paused=True)
    with running.client() as anonymous:
        assert anonymous.get("/cycles").status_code == 401
        refused = anonymous.post(f"/cycles/{paused}/approve", json={"approve": True})
        assert refused.status_code == 401
    with running.client(secret) as client:
        assert client.post(f"/cycles/{paused}/approve", json={"approve": True}).status_code == 200
        events = client.get(f"/cycles/{paused}").json()["events"]
        schema = client.get("/openapi.json").json()
    assert events[-1]["message"]["by"] == "ops"  # who decided, in the cycle's own record
    approve = schema["paths"]["/cycles/{cycle_id}/approve"]["post"]
    assert {"200", "401", "404", "409", "422"} <= set(approve["responses"])
