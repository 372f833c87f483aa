"""ModelJudge: a prompt template, a model and a classifier make a judge."""

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from pydantic import JsonValue

from jurist.core import BaseJudge, Context, JudgeKind, Judgment, Name, Usage
from jurist.judges._reading import Classifier, Unreadable
from jurist.llm import Model, ModelError, Request, Response, get_model
from jurist.prompts import PromptError, PromptTemplate, RenderedPrompt
from jurist.settings import get_settings

TOP_LOGPROBS = 10


class ModelRef:
    """A model given as a Model, a spec string, or None (the configured default), resolved
    on first use so that building a judge never loads weights or needs a key."""

    def __init__(self, model: Model | str | None) -> None:
        self._given = model
        self._model: Model | None = model if not isinstance(model, str | None) else None

    def get(self) -> Model:
        if self._model is None:
            spec = self._given if isinstance(self._given, str) else None
            self._model = get_model(spec)
        return self._model

    @property
    def label(self) -> str:
        if self._model is not None:
            return self._model.name
        return self._given if isinstance(self._given, str) else get_settings().model


def request_for(
    prompt: RenderedPrompt,
    model: Model,
    *,
    system: RenderedPrompt | None,
    json_schema: dict[str, JsonValue] | None,
    wants_logprobs: bool,
    max_tokens: int,
    temperature: float | None = None,
    seed: int = 0,
) -> Request:
    """The request a model judge sends: the system prompt first (shared by every judge, so
    the prompt cache keeps it), reproducible parameters (a fixed `seed`; sampled judgments
    pass each sample its own), probabilities when the model has them and the reading can
    use them."""
    logprobs = wants_logprobs and model.capabilities.logprobs
    settings = get_settings()
    return Request.of(
        prompt.text,
        system=system.text if system is not None else None,
        temperature=settings.temperature if temperature is None else temperature,
        seed=seed,
        max_tokens=max_tokens,
        json_schema=json_schema,
        logprobs=logprobs,
        top_logprobs=min(TOP_LOGPROBS, model.capabilities.max_top_logprobs) if logprobs else 0,
        timeout_s=settings.timeout_s,
    )


def parameters(request: Request) -> dict[str, Any]:
    """What a judgment records of the call that made it (QV-10: temperature included)."""
    return {
        "temperature": request.temperature,
        "seed": request.seed,
        "max_tokens": request.max_tokens,
        "logprobs": request.logprobs,
        "json_schema": request.json_schema is not None,
    }


def call_metadata(
    template: str, prompt: RenderedPrompt, model: Model, request: Request
) -> dict[str, Any]:
    """What a judgment records of one model call: the template, the rendered prompt's sha256,
    the model and its parameters."""
    return {
        "template": template,
        "prompt_sha256": prompt.sha256,
        "model": model.name,
        "parameters": parameters(request),
    }


def model_error_judgment(
    exc: ModelError, *, judge: str, prompt: RenderedPrompt | None, usage: Usage | None = None
) -> Judgment:
    """A model that failed is an ERROR with the model layer's kind as its cause."""
    metadata: dict[str, Any] = {"judge": judge, "cause": exc.kind.value}
    if prompt is not None:
        metadata["prompt_sha256"] = prompt.sha256
    return Judgment.error(
        f"the model failed ({exc.kind.value}): {exc.cause}", exc, usage=usage, metadata=metadata
    )


def prompt_error_judgment(exc: PromptError, *, judge: str) -> Judgment:
    """A prompt that could not be rendered (a missing variable, say): ERROR, cause "prompt"."""
    return Judgment.error(str(exc), exc, metadata={"judge": judge, "cause": "prompt"})


def unreadable_judgment(
    exc: Unreadable, *, judge: str, response: Response, prompt: RenderedPrompt
) -> Judgment:
    """An answer no classifier could read: ERROR with cause "unparseable", never FAIL."""
    return Judgment.error(
        f"the model's answer could not be read: {exc}",
        exc,
        usage=response.usage,
        metadata={
            "judge": judge,
            "cause": "unparseable",
            "answer": response.text[:2000],
            "prompt_sha256": prompt.sha256,
        },
    )


class ModelJudge(BaseJudge):
    """Render `template` against the context, ask `model`, read the answer with `classifier`.

    The judgment carries the model's usage, and in metadata the rendered prompt's sha256,
    the template's name, the model and its parameters, and how the answer was read. A model
    failure is ERROR with the model error's kind as cause; an unreadable answer is ERROR with
    cause "unparseable".
    """

    kind = JudgeKind.MODEL

    def __init__(
        self,
        model: Model | str | None,
        template: PromptTemplate | str | Path,
        classifier: Classifier,
        *,
        name: Name | None = None,
        description: str = "",
        variables: Mapping[str, Any] | None = None,
        system: PromptTemplate | str | Path | None = "system",
        max_tokens: int = 512,
        temperature: float | None = None,
    ) -> None:
        super().__init__(name, description)
        self.model = ModelRef(model)
        self.template = PromptTemplate.of(template)
        self.system = PromptTemplate.of(system) if system is not None else None
        self.classifier = classifier
        self.variables = dict(variables or {})
        self.max_tokens = max_tokens
        self.temperature = temperature

    async def judge(self, ctx: Context) -> Judgment:
        try:
            prompt = self.template.render(ctx, **self.variables)
            system = self.system.render(ctx, **self.variables) if self.system else None
        except PromptError as exc:
            return prompt_error_judgment(exc, judge=self.name)
        try:
            model = self.model.get()
            request = request_for(
                prompt,
                model,
                system=system,
                json_schema=self.classifier.json_schema,
                wants_logprobs=self.classifier.wants_logprobs,
                max_tokens=self.max_tokens,
                temperature=self.temperature,
            )
            response = await model.complete(request)
        except ModelError as exc:
            return model_error_judgment(exc, judge=self.name, prompt=prompt)
        try:
            reading = self.classifier.read(response)
        except Unreadable as exc:
            return unreadable_judgment(exc, judge=self.name, response=response, prompt=prompt)
        metadata = {
            "judge": self.name,
            **call_metadata(self.template.name, prompt, model, request),
            "method": reading.method,
            **dict(reading.details),
        }
        return Judgment(
            reading.status,
            reading.score,
            reading.reasoning,
            confidence=reading.confidence,
            usage=response.usage,
            metadata=metadata,
        )
