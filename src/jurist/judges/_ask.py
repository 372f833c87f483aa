"""One way to ask a model: render a prompt contract, call, read the answer, or say why not.

Every model-backed judge asks through `ask`. It renders the contract's template (and the
shared system prompt), builds the request from a `CallPolicy`, calls the model, and reads
the answer with the contract's reader. A template that does not render, a model that fails
and an answer that cannot be read each become an ERROR judgment with its `Cause` and what is
known of the call; never a decision.
"""

from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any, Generic, TypeVar

from jurist.core import Cause, Context, Judgment, Usage
from jurist.judges._reading import Unreadable
from jurist.llm import (
    ErrorKind,
    Model,
    ModelError,
    Request,
    Response,
    get_model,
    recorded,
    traced,
)
from jurist.prompts import PromptContract, PromptError, PromptTemplate, RenderedPrompt
from jurist.settings import Settings, get_settings

T = TypeVar("T")
TOP_LOGPROBS = 10
ANSWER_CHARS = 2000


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

    def __getstate__(self) -> dict[str, Any]:
        # A model named by spec is resolved again where the judge is unpickled (a cluster's
        # worker, whose process builds the model once): its clients belong to this process.
        # The default is pinned to this process's setting, so a worker asks the same model.
        if isinstance(self._given, str | None):
            return {"_given": self._given or get_settings().model, "_model": None}
        return dict(self.__dict__)


@dataclass(frozen=True)
class CallPolicy:
    """How a judge calls its model: sampling, seed, token budget, time limit, and whether
    token probabilities are wanted (asked only when the model has them and the contract's
    reader uses them). Made once, from the settings, by whoever builds the judge."""

    temperature: float = 0.0
    seed: int = 0
    max_tokens: int = 512
    timeout_s: float | None = 120.0
    logprobs: bool = True

    @classmethod
    def from_settings(cls, settings: Settings | None = None, **changes: Any) -> "CallPolicy":
        """The settings' temperature and time limit; `changes` that are not None on top."""
        settings = settings or get_settings()
        policy = cls(temperature=settings.temperature, timeout_s=settings.timeout_s)
        return policy.but(**changes)

    def but(self, **changes: Any) -> "CallPolicy":
        """This policy with the given fields changed; a None leaves the field as it is."""
        given = {key: value for key, value in changes.items() if value is not None}
        return replace(self, **given) if given else self

    def request(
        self,
        prompt: RenderedPrompt,
        model: Model,
        *,
        system: RenderedPrompt | None,
        json_schema: Mapping[str, Any] | None,
        logprobs: bool,
    ) -> Request:
        """The request for `prompt`: the system prompt first (shared by every judge, so the
        prompt cache keeps it), then this policy's parameters."""
        wanted = logprobs and self.logprobs and model.capabilities.logprobs
        return Request.of(
            prompt.text,
            system=system.text if system is not None else None,
            temperature=self.temperature,
            seed=self.seed,
            max_tokens=self.max_tokens,
            json_schema=dict(json_schema) if json_schema is not None else None,
            logprobs=wanted,
            top_logprobs=min(TOP_LOGPROBS, model.capabilities.max_top_logprobs) if wanted else 0,
            timeout_s=self.timeout_s,
        )


def parameters(request: Request) -> dict[str, Any]:
    """What a judgment records of the call that made it, temperature included, so that a
    judgment can be reproduced."""
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


@dataclass(frozen=True)
class Answer(Generic[T]):
    """A model's answer read into a value, with the call that produced it."""

    value: T
    response: Response
    prompt: RenderedPrompt
    request: Request
    model: Model
    template: str

    @property
    def usage(self) -> Usage:
        return self.response.usage

    @property
    def parameters(self) -> dict[str, Any]:
        return parameters(self.request)

    @property
    def call(self) -> dict[str, Any]:
        """The call alone: template, prompt sha256, model, parameters."""
        return call_metadata(self.template, self.prompt, self.model, self.request)

    def metadata(self, judge: str) -> dict[str, Any]:
        """The judge's name and the call: template, prompt sha256, model, parameters."""
        return {
            "judge": judge,
            **call_metadata(self.template, self.prompt, self.model, self.request),
        }


# What an ERROR judgment from `ask` records of the call it made (when the call was made).
CALL_KEYS = ("template", "prompt_sha256", "model", "parameters")


@dataclass(frozen=True)
class Failure:
    """Why `ask` gave no answer, for a judge that records a failed part (one claim, one
    sentence) instead of returning the ERROR judgment: the cause, the error's message, and
    what is known of the call."""

    cause: Cause
    error: str
    call: dict[str, Any]

    @classmethod
    def of(cls, judgment: Judgment) -> "Failure":
        info = judgment.error_info
        return cls(
            judgment.cause or Cause.ERROR,
            info["message"] if info is not None else judgment.reasoning,
            {key: judgment.metadata[key] for key in CALL_KEYS if key in judgment.metadata},
        )

    def model_error(self) -> ModelError | None:
        """The model layer's error this failure stands for, rebuilt from what the judgment
        kept (its kind, the model and the error's message), for a caller whose contract is
        to raise it; None when the failure is not the model's."""
        try:
            kind = ErrorKind(self.cause.value)
        except ValueError:
            return None
        model = self.call.get("model")
        # A ModelError's message is "KIND[ from MODEL]: CAUSE"; the model's name holds no ": ".
        cause = self.error.split(": ", 1)[1] if ": " in self.error else self.error
        return ModelError(kind, cause, model=model if isinstance(model, str) else None)


def model_error_judgment(
    exc: ModelError,
    *,
    judge: str,
    prompt: RenderedPrompt | None,
    usage: Usage | None = None,
    call: Mapping[str, Any] | None = None,
) -> Judgment:
    """A model that failed is an ERROR with the model layer's kind as its cause."""
    metadata: dict[str, Any] = {**(call or {}), "judge": judge, "cause": Cause(exc.kind.value)}
    if prompt is not None:
        metadata["prompt_sha256"] = prompt.sha256
    return Judgment.error(
        f"the model failed ({exc.kind.value}): {exc.cause}",
        exc,
        usage=usage if usage is not None else exc.usage,
        metadata=metadata,
    )


def prompt_error_judgment(exc: PromptError, *, judge: str) -> Judgment:
    """A prompt that could not be rendered (a missing variable, say): ERROR, cause PROMPT."""
    return Judgment.error(str(exc), exc, metadata={"judge": judge, "cause": Cause.PROMPT})


def unreadable_judgment(
    exc: Unreadable,
    *,
    judge: str,
    response: Response,
    prompt: RenderedPrompt,
    call: Mapping[str, Any] | None = None,
) -> Judgment:
    """An answer no reader could read: ERROR with cause UNPARSEABLE, never FAIL."""
    return Judgment.error(
        f"the model's answer could not be read: {exc}",
        exc,
        usage=response.usage,
        metadata={
            **(call or {}),
            "judge": judge,
            "cause": Cause.UNPARSEABLE,
            "answer": response.text[:ANSWER_CHARS],
            "prompt_sha256": prompt.sha256,
        },
    )


class _System:
    """The shared system prompt, unless a caller gives its own or none."""


SYSTEM = _System()


async def ask(
    model: Model | ModelRef,
    contract: PromptContract[T],
    ctx_or_vars: Context | Mapping[str, Any] | None = None,
    /,
    *,
    policy: CallPolicy,
    judge: str,
    variables: Mapping[str, Any] | None = None,
    system: PromptTemplate | RenderedPrompt | _System | None = SYSTEM,
) -> Answer[T] | Judgment:
    """Ask `model` the contract's prompt and read its answer into a value.

    `ctx_or_vars` is the context the template renders against (with `variables` on top) or
    the variables alone. The system prompt is the shared one unless `system` gives another
    (a template, rendered with the same context and variables; or a text already rendered,
    sent exactly as it is, such as a prompt under improvement) or None. Returns the `Answer`, or the
    ERROR judgment that says why there is none: cause PROMPT for a template that does not
    render, the model error's kind for a failed call, UNPARSEABLE for an unreadable answer.
    """
    ctx = ctx_or_vars if isinstance(ctx_or_vars, Context) else None
    values = dict(ctx_or_vars) if isinstance(ctx_or_vars, Mapping) else {}
    values.update(variables or {})
    template = PromptTemplate.named("system") if isinstance(system, _System) else system
    try:
        prompt = contract.prompt.render(ctx, **values)
        system_prompt = (
            template.render(ctx, **values) if isinstance(template, PromptTemplate) else template
        )
    except PromptError as exc:
        return prompt_error_judgment(exc, judge=judge)
    call: dict[str, Any] = {}
    try:
        # A model given as an object (not from get_model) is traced here all the same.
        resolved = traced(model.get() if isinstance(model, ModelRef) else model)
        request = policy.request(
            prompt,
            resolved,
            system=system_prompt,
            json_schema=contract.schema,
            logprobs=contract.logprobs,
        )
        call = call_metadata(contract.name, prompt, resolved, request)
        # Kept with the judgment's prompts and answers when the caller records calls.
        response = await recorded(resolved, judge=judge).complete(request)
    except ModelError as exc:
        return model_error_judgment(exc, judge=judge, prompt=prompt, call=call)
    try:
        value = contract.read(response)
    except Unreadable as exc:
        return unreadable_judgment(exc, judge=judge, response=response, prompt=prompt, call=call)
    return Answer(value, response, prompt, request, resolved, contract.name)
