"""What a call cost: token counts priced from an editable table (prices.toml)."""

import dataclasses
import fnmatch
import math
import os
import tomllib
from collections.abc import Mapping
from importlib import resources
from pathlib import Path
from typing import Any

from jurist.core import Usage
from jurist.llm._types import Model, Request, Response
from jurist.llm._wrapper import ModelWrapper

_PER = 1_000_000


@dataclasses.dataclass(frozen=True)
class ModelPrice:
    """US dollars per million input and output tokens."""

    input: float
    output: float

    def cost(self, usage: Usage) -> float:
        return (usage.input_tokens * self.input + usage.output_tokens * self.output) / _PER


class PriceTable:
    """Prices by provider, then by model name or glob pattern.

    A model name is "provider:model" ("openai:gpt-4o"). Within the provider's table an exact
    name wins over patterns and a longer pattern over a shorter one, so a broad "claude-3-5*"
    and a narrower "claude-3-5-haiku*" can coexist. No match is an unknown price: None,
    never a guess.
    """

    def __init__(self, prices: Mapping[str, Mapping[str, ModelPrice]]) -> None:
        self.prices = {provider: dict(models) for provider, models in prices.items()}

    @classmethod
    def load(cls, path: str | os.PathLike[str] | None = None) -> "PriceTable":
        """The table in a TOML file; without a path, the one shipped with jurist."""
        if path is None:
            source = "jurist/llm/prices.toml"
            text = resources.files("jurist.llm").joinpath("prices.toml").read_text("utf-8")
        else:
            source = str(path)
            try:
                text = Path(path).read_text(encoding="utf-8")
            except (OSError, UnicodeDecodeError) as exc:
                raise ValueError(f"price file {source}: cannot read it: {exc}") from exc
        try:
            data = tomllib.loads(text)
        except tomllib.TOMLDecodeError as exc:
            raise ValueError(f"price file {source}: not valid TOML: {exc}") from exc
        return cls(_parse(data, source))

    def price(self, model_name: str) -> ModelPrice | None:
        provider, _, model = model_name.partition(":")
        models = self.prices.get(provider)
        if not model or models is None:
            return None
        exact = models.get(model)
        if exact is not None:
            return exact
        matching = [pattern for pattern in models if fnmatch.fnmatchcase(model, pattern)]
        if not matching:
            return None
        return models[max(matching, key=len)]

    def cost(self, model_name: str, usage: Usage) -> float | None:
        """The cost in US dollars of `usage` on the model, or None when it is not priced."""
        price = self.price(model_name)
        return None if price is None else price.cost(usage)


def _parse(data: Mapping[str, Any], source: str) -> dict[str, dict[str, ModelPrice]]:
    prices: dict[str, dict[str, ModelPrice]] = {}
    for provider, models in data.items():
        if not isinstance(models, Mapping):
            raise ValueError(f"price file {source}: [{provider}] must be a table of models")
        prices[provider] = {}
        for model, entry in models.items():
            where = f"price file {source}: {provider} {model!r}"
            if not isinstance(entry, Mapping) or set(entry) != {"input", "output"}:
                raise ValueError(f"{where} must be {{ input = ..., output = ... }}")
            numbers = [entry["input"], entry["output"]]
            if not all(
                isinstance(n, int | float)
                and not isinstance(n, bool)
                and math.isfinite(n)
                and n >= 0
                for n in numbers
            ):
                raise ValueError(f"{where}: prices must be numbers >= 0")
            prices[provider][model] = ModelPrice(float(numbers[0]), float(numbers[1]))
    return prices


class Priced(ModelWrapper):
    """Fills in what each answer cost, from `table` (the shipped prices.toml by default).

    A model the table does not know keeps the cost its provider reported, usually None
    (unknown). An answer from the cache cost nothing; one only partly from the cache cannot
    be split into priced and free tokens, so its cost is left as it is.
    """

    def __init__(self, inner: Model, table: PriceTable | None = None) -> None:
        super().__init__(inner)
        self.table = table if table is not None else PriceTable.load()

    async def complete(self, request: Request) -> Response:
        response = await self.inner.complete(request)
        usage = response.usage
        if usage.cached_calls:
            cost = 0.0 if response.cached else usage.cost_usd
        else:
            cost = self.table.cost(self.name, usage)
            if cost is None:
                return response
        return dataclasses.replace(response, usage=dataclasses.replace(usage, cost_usd=cost))
