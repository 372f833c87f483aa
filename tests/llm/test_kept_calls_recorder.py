"""recording_calls(): the calls made under a judgment, its prompts and raw answers, kept in
the order they ended, each judging's in its own list."""

import asyncio

from jurist.core import Context, Status, run_judge
from jurist.judges import CriterionJudge
from jurist.jury import Jury, Majority
from jurist.llm import (
    Cached,
    ErrorKind,
    ModelError,
    Recorded,
    RecordedCall,
    ResponseCache,
    recorded,
    recording_calls,
)
from jurist.testing import FakeModel

YES = {"answer": "yes", "reason": "It says 30 days."}
NO = {"answer": "no", "reason": "No window given."}
GUARD_S = 30  # a guard against a deadlocked test, not a timing assumption
CTX = Context("Refunds?", output="Within 30 days.")


def criterion(model: FakeModel, name: str = "window") -> CriterionJudge:
    return CriterionJudge("The answer states the refund window", model, name=name)


def together(parties: int) -> asyncio.Barrier:
    """A barrier every call of the test waits at: the calls can only pass it if they are in
    flight at the same time."""
    return asyncio.Barrier(parties)


async def test_a_judgment_s_call_is_recorded_with_its_messages_and_raw_answer():
    model = FakeModel(YES)
    with recording_calls() as calls:
        judgment = await run_judge(criterion(model), CTX)
    assert judgment.status is Status.PASS
    assert len(calls) == 1
    call = calls[0]
    sent = model.requests[0]
    assert call.messages == sent.messages
    assert call.messages[-1].content == model.prompts[0]
    assert "Within 30 days." in call.messages[-1].content
    assert call.answer == '{"answer": "yes", "reason": "It says 30 days."}'
    assert call.model == "fake:model"
    assert call.judge == "window"
    assert call.input_tokens == judgment.usage.input_tokens > 0
    assert call.output_tokens == judgment.usage.output_tokens > 0
    assert call.cost_usd is None
    assert call.latency_ms is not None
    assert call.latency_ms >= 0
    assert (call.cached, call.error) == (False, None)


async def test_the_dict_of_a_call_has_the_documented_shape():
    with recording_calls() as calls:
        await run_judge(criterion(FakeModel(YES)), CTX)
    shown = calls[0].to_dict()
    assert shown["messages"][-1]["role"] == "user"
    assert [set(m) for m in shown["messages"]] == [{"role", "content"}] * len(shown["messages"])
    assert {
        "messages": list,
        "answer": str,
        "model": str,
        "input_tokens": int,
        "output_tokens": int,
        "latency_ms": float,
        "cached": bool,
        "judge": str,
    } == {key: type(shown[key]) for key in shown if shown[key] is not None}
    assert shown["cost_usd"] is None
    assert shown["error"] is None


async def test_nothing_is_recorded_outside_recording_calls():
    model = FakeModel(YES)
    assert recorded(model) is model  # no wrapper, no cost, outside a recording
    await run_judge(criterion(model), CTX)
    with recording_calls() as calls:
        pass
    assert calls == []
    assert model.calls == 1


async def test_a_recorded_wrapper_made_once_records_only_inside_a_recording():
    model = Recorded(FakeModel(YES), judge="kept")
    await run_judge(criterion(model), CTX)
    with recording_calls() as calls:
        await run_judge(criterion(model), CTX)
    assert [call.judge for call in calls] == ["kept"]


async def test_two_judgings_in_flight_at_once_keep_separate_lists():
    barrier = together(2)

    async def reply(prompt: str) -> dict[str, str]:
        await barrier.wait()
        return YES if "30 days" in prompt else NO

    model = FakeModel(reply)

    async def judging(output: str) -> list[RecordedCall]:
        with recording_calls() as calls:
            await run_judge(criterion(model), Context("Refunds?", output=output))
        return calls

    async with asyncio.timeout(GUARD_S):
        first, second = await asyncio.gather(
            judging("Within 30 days."), judging("Whenever you like.")
        )
    assert [len(first), len(second)] == [1, 1]
    assert "Within 30 days." in first[0].messages[-1].content
    assert '"yes"' in first[0].answer
    assert "Whenever you like." in second[0].messages[-1].content
    assert '"no"' in second[0].answer


async def test_a_jury_s_members_judging_concurrently_land_in_one_list():
    barrier = together(2)

    def member(answer: dict[str, str]) -> FakeModel:
        async def reply(prompt: str) -> dict[str, str]:
            await barrier.wait()
            return answer

        return FakeModel(reply)

    jury = Jury(
        [criterion(member(YES), "strict"), criterion(member(NO), "lenient")],
        Majority(),
        name="panel",
    )
    async with asyncio.timeout(GUARD_S):
        with recording_calls() as calls:
            await jury.vote(CTX)
    assert sorted(call.judge or "" for call in calls) == ["lenient", "strict"]
    answers = {call.judge: call.answer for call in calls}
    assert '"yes"' in answers["strict"]
    assert '"no"' in answers["lenient"]


async def test_a_failed_call_is_recorded_with_its_error_instead_of_an_answer():
    failing = FakeModel(ModelError(ErrorKind.RATE_LIMITED, "slow down", model="fake:model"))
    with recording_calls() as calls:
        judgment = await run_judge(criterion(failing), CTX)
    assert judgment.status is Status.ERROR
    assert len(calls) == 1
    assert calls[0].answer == ""
    assert calls[0].error == "rate_limited from fake:model: slow down"
    assert "Within 30 days." in calls[0].messages[-1].content


async def test_a_call_that_raises_something_else_is_recorded_naming_the_exception():
    script = FakeModel([])  # an empty script: the first call fails the way a test's would
    with recording_calls() as calls:
        judgment = await run_judge(criterion(script), CTX)
    assert judgment.status is Status.ERROR
    assert calls[0].error is not None
    assert calls[0].error.startswith("AssertionError: FakeModel 'fake:model' was called 1 times")


async def test_an_answer_from_the_response_cache_is_recorded_as_cached(tmp_path):
    model = FakeModel(YES)
    cached = Cached(model, ResponseCache(tmp_path / "cache.sqlite3"))
    with recording_calls() as calls:
        await run_judge(criterion(cached), CTX)
        await run_judge(criterion(cached), CTX)
    assert model.calls == 1  # the second answer came from the cache
    assert [call.cached for call in calls] == [False, True]
    assert calls[0].answer == calls[1].answer
    assert calls[0].messages == calls[1].messages


async def test_a_recording_inside_another_records_alone():
    with recording_calls() as outer:
        await run_judge(criterion(FakeModel(YES), "first"), CTX)
        with recording_calls() as inner:
            await run_judge(criterion(FakeModel(YES), "second"), CTX)
        await run_judge(criterion(FakeModel(YES), "third"), CTX)
    assert [call.judge for call in outer] == ["first", "third"]
    assert [call.judge for call in inner] == ["second"]


async def test_calls_are_kept_in_the_order_they_ended():
    """Three calls of one judging in flight at once, released in the order 2, 0, 1."""
    release = [asyncio.Event() for _ in range(3)]
    started = together(4)

    async def reply(prompt: str) -> dict[str, str]:
        index = int(prompt.split("ITEM#")[1][0])
        await started.wait()
        await release[index].wait()
        return YES

    model = FakeModel(reply)

    async def one(index: int) -> None:
        await run_judge(criterion(model, f"j{index}"), Context("Q?", output=f"ITEM#{index}"))

    async with asyncio.timeout(GUARD_S):
        with recording_calls() as calls:
            tasks = [asyncio.create_task(one(i)) for i in range(3)]
            await started.wait()
            for index in (2, 0, 1):
                release[index].set()
                await tasks[index]  # its call has ended before the next is let go
    assert [call.judge for call in calls] == ["j2", "j0", "j1"]
