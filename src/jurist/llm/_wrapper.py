"""The base of every middleware: a model that wraps another model and is a model itself."""

from jurist.core import run_sync
from jurist.llm._types import Capabilities, Model, Request, Response


class ModelWrapper:
    """Forwards everything to `inner`; a middleware overrides `complete`."""

    def __init__(self, inner: Model) -> None:
        self.inner = inner

    @property
    def name(self) -> str:
        return self.inner.name

    @property
    def capabilities(self) -> Capabilities:
        return self.inner.capabilities

    async def complete(self, request: Request) -> Response:
        return await self.inner.complete(request)

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.inner!r})"


def innermost(model: Model) -> Model:
    """The provider under all the middleware."""
    while isinstance(model, ModelWrapper):
        model = model.inner
    return model


def identity(model: Model) -> str:
    """What answers behind `model`: the provider's `fingerprint` when it has one (the
    embedded models: their weights' hash), else the model's name."""
    fingerprint = getattr(innermost(model), "fingerprint", None)
    return fingerprint if isinstance(fingerprint, str) else model.name


def complete_sync(model: Model, request: Request) -> Response:
    """Complete from sync code (scripts, notebooks); the model layer itself is async."""
    return run_sync(lambda: model.complete(request))
