"""FakeModel: a model that answers what a test scripted, and records what it was asked."""

import inspect
import json
from collections.abc import Awaitable, Callable, Iterable, Mapping, Sequence
from typing import Any, TypeAlias

from jurist.core import Usage
from jurist.llm import Capabilities, Choice, Request, Response, estimate_input_tokens

# What one call answers: text; a dict or list, sent as its JSON text (the form judges ask
# for); a whole Response; or an exception, raised (a ModelError to test a failing model).
Reply: TypeAlias = str | Mapping[str, Any] | Sequence[Any] | Response | BaseException
ReplyFunction: TypeAlias = Callable[[str], Reply | Awaitable[Reply]]


class FakeModel:
    """A model for your own tests: it answers from a script, with one fixed reply, or with a
    function of the prompt, and records every request. It is a `jurist.llm.Model`, so it goes
    wherever a model is taken (a judge's `model`, `judge_from_spec(..., model=)`, ...), and it
    never loads weights, needs a key, or touches the network.

    `replies` is either
      - one reply (text, a dict sent as JSON, a Response or an exception) for every call;
      - a list of replies, one per call in order (call k gets reply k; a call past the end
        fails the test with an AssertionError, which the judge reports as an ERROR);
      - a function of the prompt (the text of the last message) returning a reply, or an
        awaitable of one.

    A judge reads a model's JSON answer: a criterion judge (`criterion:TEXT`) wants
    `{"answer": "yes" or "no", "reason": "..."}`; a rubric judge, once per criterion,
    `{"reasoning": "...", "score": N, "confidence": 0.8}`; each request carries the JSON
    schema its answer must fit in `request.json_schema`.

        from jurist.core import Context, Status, judge_sync
        from jurist.judges import CriterionJudge
        from jurist.testing import FakeModel

        model = FakeModel({"answer": "yes", "reason": "It says 30 days."})
        judge = CriterionJudge("The answer states the refund window", model)
        judgment = judge_sync(judge, Context("Refunds?", output="Within 30 days."))
        assert judgment.status is Status.PASS
        assert "Within 30 days." in model.prompts[0]

    `requests` holds every Request in order and `prompts` the text of each one's last
    message; `calls` counts them. Each answer reports its tokens (estimated from the text)
    under the model's `name`, with no cost.
    """

    def __init__(
        self,
        replies: Reply | Iterable[Reply] | ReplyFunction = "ok",
        *,
        name: str = "fake:model",
        capabilities: Capabilities | None = None,
    ) -> None:
        self._name = name
        self._capabilities = capabilities or Capabilities(json_schema=True, seed=True, local=True)
        self._function: ReplyFunction | None = None
        self._script: list[Reply] | None = None
        self._fixed: Reply | None = None
        if callable(replies) and not isinstance(replies, BaseException):
            self._function = replies
        elif isinstance(replies, str | Mapping | Response | BaseException):
            self._fixed = replies
        elif isinstance(replies, Iterable):
            self._script = list(replies)
        else:
            raise TypeError(
                "FakeModel replies: a reply (text, dict, Response, exception), a list of "
                f"replies, or a function of the prompt; got {type(replies).__name__}"
            )
        self.requests: list[Request] = []

    @property
    def name(self) -> str:
        return self._name

    @property
    def capabilities(self) -> Capabilities:
        return self._capabilities

    @property
    def calls(self) -> int:
        return len(self.requests)

    @property
    def prompts(self) -> list[str]:
        """The text of each request's last message (the prompt a judge rendered)."""
        return [request.messages[-1].content for request in self.requests]

    async def complete(self, request: Request) -> Response:
        self.requests.append(request)
        reply = await self._reply(request)
        if isinstance(reply, BaseException):
            raise reply
        if isinstance(reply, Response):
            return reply
        text = reply if isinstance(reply, str) else json.dumps(reply, ensure_ascii=False)
        usage = Usage(
            input_tokens=estimate_input_tokens(request),
            output_tokens=max(1, len(text) // 4),
            model=self._name,
            calls=1,
        )
        return Response.from_choices([Choice(text, finish_reason="stop")], usage)

    async def _reply(self, request: Request) -> Reply:
        if self._function is not None:
            made = self._function(request.messages[-1].content)
            return await made if inspect.isawaitable(made) else made
        if self._script is None:
            assert self._fixed is not None
            return self._fixed
        if self.calls > len(self._script):
            raise AssertionError(
                f"FakeModel {self._name!r} was called {self.calls} times, but its script has "
                f"{len(self._script)} replies"
            )
        return self._script[self.calls - 1]
