"""Traced: each model call as an OpenTelemetry span, after the GenAI semantic conventions.

The span is named "chat MODEL" and holds the operation, the provider, the requested and
answering model, the request's parameters, the tokens used, the finish reasons and whether
the response cache answered; its duration is the call's latency as the caller sees it
(retries, waits for a slot and the re-ask of structured output included). A failed call
fails the span with the model error's kind as `error.type`.
"""

from jurist.core import AttributeValue, trace_span, tracing_enabled
from jurist.llm._types import Model, ModelError, Request, Response
from jurist.llm._wrapper import ModelWrapper


class Traced(ModelWrapper):
    """Makes a span of every call while tracing is on; passes calls straight through while
    it is off."""

    async def complete(self, request: Request) -> Response:
        if not tracing_enabled():
            return await self.inner.complete(request)
        provider, model = provider_and_model(self.name)
        with trace_span(f"chat {model}", request_attributes(provider, model, request)) as span:
            try:
                response = await self.inner.complete(request)
            except ModelError as exc:
                if span is not None:
                    span.fail(exc.kind.value, str(exc))
                raise
            if span is not None:
                span.set(response_attributes(response, model))
            return response


def traced(model: Model) -> Model:
    """`model` with its calls traced: itself when tracing is off or a layer of it already
    traces, else wrapped in `Traced`."""
    if not tracing_enabled():
        return model
    layer: Model = model
    while isinstance(layer, ModelWrapper):
        if isinstance(layer, Traced):
            return model
        layer = layer.inner
    return Traced(model)


def provider_and_model(name: str) -> tuple[str, str]:
    """The provider and the model of a model's name ("openai:gpt-4o-mini" -> "openai",
    "gpt-4o-mini"); a name without a provider is its own model, from an unknown provider."""
    provider, separator, model = name.partition(":")
    return (provider, model) if separator and model else ("unknown", name)


def request_attributes(provider: str, model: str, request: Request) -> dict[str, AttributeValue]:
    return {
        "gen_ai.operation.name": "chat",
        # The older attribute beside the newer, so tools reading either find the provider.
        "gen_ai.provider.name": provider,
        "gen_ai.system": provider,
        "gen_ai.request.model": model,
        "gen_ai.request.temperature": request.temperature,
        "gen_ai.request.max_tokens": request.max_tokens,
        "gen_ai.request.seed": request.seed,
        "gen_ai.output.type": "json" if request.json_schema is not None else "text",
    }


def response_attributes(response: Response, requested: str) -> dict[str, AttributeValue]:
    usage = response.usage
    answered = usage.model
    if answered is not None:
        answered = provider_and_model(answered)[1] if ":" in answered else answered
    return {
        "gen_ai.response.model": answered or requested,
        "gen_ai.usage.input_tokens": usage.input_tokens,
        "gen_ai.usage.output_tokens": usage.output_tokens,
        "gen_ai.response.finish_reasons": tuple(
            choice.finish_reason or "unknown" for choice in response.choices
        ),
        "jurist.cache.hit": response.cached,
        "jurist.usage.cost_usd": usage.cost_usd,
    }
