"""`litellm:MODEL`: any provider LiteLLM knows (`litellm:gpt-4o-mini`,
`litellm:anthropic/claude-3-5-haiku`, `litellm:ollama/llama3`, ...), through
`litellm.acompletion`.

LiteLLM takes and gives the OpenAI chat-completions format, so the request is the one the
OpenAI provider sends (`chat_payload`) and the answer is read as its answers are
(`parse_completion`); LiteLLM's exceptions subclass the openai SDK's and map to ModelErrors
as the OpenAI provider's do. Its own retries are off: retrying is the Retrying middleware's.

Importing LiteLLM would fetch its model cost map from the network: jurist sets
`LITELLM_LOCAL_MODEL_COST_MAP` (unless it is set already) so that LiteLLM reads the map it
ships with, and no call leaves the machine but the model calls themselves.
"""

import asyncio
import dataclasses
import importlib.util
import os
import time
from typing import Any

from jurist.core import Usage
from jurist.llm._cost import PriceTable
from jurist.llm._types import Capabilities, ErrorKind, ModelError, Request, Response

if importlib.util.find_spec("litellm") is None:
    raise ModelError(
        ErrorKind.UNAVAILABLE,
        "LiteLLM is not installed: pip install 'jurist[litellm]'",
        model="litellm",
    )

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

import litellm  # after the cost map is made local
import openai
from litellm.exceptions import BudgetExceededError, ContentPolicyViolationError

from jurist.llm._http import unexpected_error
from jurist.llm._openai import openai_error, rejects_schema_mode
from jurist.llm._openai_wire import SchemaMode, chat_payload, parse_completion

# LiteLLM prints a "Give Feedback / Get Help" banner on every exception: jurist reports its
# failures as ModelErrors, and a batch would print the banner once an item.
litellm.suppress_debug_info = True

_WEAKER: dict[SchemaMode, SchemaMode] = {"json_schema": "json_object", "json_object": "none"}


class LiteLLMModel:
    """A model called through LiteLLM; `model_id` is LiteLLM's model name
    (`anthropic/claude-3-5-haiku`).

    What the provider supports is LiteLLM's word (`get_supported_openai_params`): logprobs,
    seed and `n` are sent only where the provider takes them (`drop_params`), and a request
    for logprobs is answered without them where it does not, as `capabilities` says.
    Where `n` is not taken, n samples are n concurrent calls. A JSON schema goes as
    `response_format` json_schema where the provider takes a response format (LiteLLM turns
    it into the provider's own structured output), else into the prompt; a server that
    rejects json_schema is asked in json_object mode, then with the schema in the prompt
    only, as the OpenAI provider does.

    Cost: jurist's price table first (`prices`: a `[litellm]` entry for the model id, else
    the entry of the provider LiteLLM routes to, `openai:gpt-4o-mini` for
    `litellm:gpt-4o-mini`), else LiteLLM's cost map (`litellm.completion_cost`), else
    unknown (None).
    """

    def __init__(
        self,
        model_id: str,
        *,
        name: str | None = None,
        api_base: str | None = None,
        api_key: str | None = None,
        prices: PriceTable | None = None,
    ) -> None:
        self.model_id = model_id
        self.api_base = api_base.rstrip("/") if api_base else None
        self._api_key = api_key
        self._name = name or f"litellm:{model_id}"
        self._prices = prices if prices is not None else PriceTable.load()
        try:
            routed, provider, _, _ = litellm.get_llm_provider(model_id, api_base=self.api_base)
        except Exception as exc:  # LiteLLM raises its BadRequestError, or a plain ValueError
            raise ModelError(
                ErrorKind.CLIENT_ERROR,
                f"LiteLLM knows no provider for {model_id!r}: {exc}",
                model=self._name,
                retryable=False,
            ) from exc
        self._jurist_name = f"{provider}:{routed}"
        supported = set(
            litellm.get_supported_openai_params(model=routed, custom_llm_provider=provider) or ()
        )
        self.schema_mode: SchemaMode = "json_schema" if "response_format" in supported else "none"
        self._capabilities = Capabilities(
            logprobs="logprobs" in supported,
            max_top_logprobs=20 if "top_logprobs" in supported else 0,
            json_schema=self.schema_mode == "json_schema",
            json_mode=self.schema_mode == "json_schema",
            seed="seed" in supported,
            multiple_samples="n" in supported,
        )

    @property
    def name(self) -> str:
        return self._name

    @property
    def capabilities(self) -> Capabilities:
        return self._capabilities

    def __repr__(self) -> str:
        return f"LiteLLMModel({self._name!r})"

    async def complete(self, request: Request) -> Response:
        if request.n == 1 or self._capabilities.multiple_samples:
            return await self._call(request)
        # The first failure cancels the other samples; the caller sees that one ModelError.
        one = dataclasses.replace(request, n=1)
        try:
            async with asyncio.TaskGroup() as group:
                tasks = [group.create_task(self._call(one)) for _ in range(request.n)]
        except* ModelError as failures:
            raise failures.exceptions[0] from None
        answers = [task.result() for task in tasks]
        usage = Usage.total(answer.usage for answer in answers) or Usage()
        return Response.from_choices([answer.choices[0] for answer in answers], usage)

    async def _call(self, request: Request) -> Response:
        started = time.perf_counter()
        try:
            while True:
                mode = self.schema_mode
                try:
                    answer = await litellm.acompletion(**self._arguments(request, mode))
                    break
                except openai.APIStatusError as exc:
                    if request.json_schema is None or not rejects_schema_mode(exc, mode):
                        raise
                    self._weaken(mode)
        except Exception as exc:
            raise self._error(exc) from exc
        latency_ms = (time.perf_counter() - started) * 1000
        try:
            data = answer.model_dump()
            response = parse_completion(
                data,
                model_name=self._name,
                latency_ms=latency_ms,
                want_json=request.json_schema is not None,
            )
        except ModelError:
            raise
        except Exception as exc:
            raise unexpected_error(exc, self._name) from exc
        cost = self._cost(response.usage, answer)
        return dataclasses.replace(
            response, usage=dataclasses.replace(response.usage, cost_usd=cost)
        )

    def _arguments(self, request: Request, mode: SchemaMode) -> dict[str, Any]:
        arguments = chat_payload(request, self.model_id, mode)
        arguments.update(
            timeout=request.timeout_s,
            num_retries=0,
            max_retries=0,
            # What the provider does not take is left out, not a failed call: logprobs from
            # a provider without them are absent, as capabilities say.
            drop_params=True,
        )
        if self.api_base is not None:
            arguments["api_base"] = self.api_base
        if self._api_key is not None:
            arguments["api_key"] = self._api_key
        return arguments

    def _weaken(self, rejected: SchemaMode) -> None:
        # Concurrent calls may all be rejected: only the first steps down, so none skips a mode.
        if self.schema_mode != rejected:
            return
        self.schema_mode = _WEAKER[rejected]
        self._capabilities = dataclasses.replace(
            self._capabilities, json_schema=False, json_mode=self.schema_mode == "json_object"
        )

    def _cost(self, usage: Usage, answer: Any) -> float | None:
        own = self._prices.cost(self._name, usage)
        if own is None:
            own = self._prices.cost(self._jurist_name, usage)
        if own is not None:
            return own
        try:
            cost = float(litellm.completion_cost(completion_response=answer))
        except Exception:  # noqa: BLE001  # LiteLLM raises when its map has no price for it
            return None
        return cost

    def _error(self, exc: Exception) -> ModelError:
        if isinstance(exc, ModelError):
            return exc
        if isinstance(exc, ContentPolicyViolationError):
            return ModelError(ErrorKind.REFUSED, exc.message, model=self._name, status=400)
        if isinstance(exc, BudgetExceededError):
            return ModelError(ErrorKind.BUDGET, str(exc), model=self._name)
        return openai_error(_connection_failure(exc) or exc, self._name)


def _connection_failure(exc: BaseException) -> openai.APIConnectionError | None:
    """The connection error behind `exc`, if one is: LiteLLM reports a server it could not
    reach (or that did not answer in time) as its InternalServerError, an HTTP 500 no
    server sent."""
    seen: set[int] = set()
    cause: BaseException | None = exc
    while cause is not None and id(cause) not in seen:
        if isinstance(cause, openai.APIConnectionError):
            return cause
        seen.add(id(cause))
        cause = cause.__cause__ or cause.__context__
    return None
