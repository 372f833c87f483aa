"""Request options a caller fixes for every call through a model, whatever the request says.

A judge builds its own requests; a caller that needs those requests sent at another
temperature, with another seed or under another timeout (an evaluator bound to a message's
deadline, the sampled runs of a tournament) wraps the judge's model instead:

    sampled = with_options(model, temperature=0.7, seed=3)
"""

import dataclasses
from typing import Any

from jurist.llm._types import Model, Request, Response
from jurist.llm._wrapper import ModelWrapper


class WithOptions(ModelWrapper):
    """Sends every request with the options given here in place of its own; an option left
    None keeps the request's."""

    def __init__(
        self,
        inner: Model,
        *,
        temperature: float | None = None,
        seed: int | None = None,
        timeout_s: float | None = None,
    ) -> None:
        super().__init__(inner)
        self.temperature = temperature
        self.seed = seed
        self.timeout_s = timeout_s

    def _changes(self) -> dict[str, Any]:
        given = {"temperature": self.temperature, "seed": self.seed, "timeout_s": self.timeout_s}
        return {name: value for name, value in given.items() if value is not None}

    async def complete(self, request: Request) -> Response:
        changes = self._changes()
        if changes:
            request = dataclasses.replace(request, **changes)
        return await self.inner.complete(request)


def with_options(
    model: Model,
    *,
    temperature: float | None = None,
    seed: int | None = None,
    timeout_s: float | None = None,
) -> WithOptions:
    """`model`, sending every request at `temperature`, with `seed` and under `timeout_s`
    (each only when given)."""
    return WithOptions(model, temperature=temperature, seed=seed, timeout_s=timeout_s)
