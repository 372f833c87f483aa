"""Model specs: the one string that names a provider and a model, e.g. `openai:gpt-4o-mini`."""

from pathlib import Path
from typing import Literal
from urllib.parse import urlparse

from jurist.core import JuristError, record
from jurist.llm._catalog import CATALOG, DEFAULT_LOCAL

Provider = Literal[
    "local", "openai", "openai-compatible", "anthropic", "ollama", "vllm", "azure", "litellm"
]

# Providers whose spec is just "PROVIDER:MODEL", the endpoint coming from the settings.
_NAMED: tuple[Provider, ...] = ("openai", "anthropic", "ollama", "vllm", "azure", "litellm")

VALID_FORMS = (
    f"local:{DEFAULT_LOCAL} (the default)",
    *(f"local:{name}" for name in CATALOG if name != DEFAULT_LOCAL),
    "local:/path/to/model.gguf",
    "openai:MODEL",
    "openai-compatible:MODEL@http://host:port/v1",
    "anthropic:MODEL",
    "ollama:MODEL (an Ollama server, http://127.0.0.1:11434/v1 unless configured)",
    "vllm:MODEL (a vLLM server, http://127.0.0.1:8000/v1 unless configured)",
    "azure:DEPLOYMENT (Azure OpenAI)",
    "litellm:MODEL (any model LiteLLM knows, e.g. litellm:anthropic/claude-3-5-haiku)",
)


class ModelSpecError(JuristError, ValueError):
    """A model spec that cannot be read; the message says why and lists the valid forms."""

    def __init__(self, spec: str, problem: str) -> None:
        self.spec = spec
        self.problem = problem
        forms = "\n  ".join(VALID_FORMS)
        super().__init__(f"model spec {spec!r}: {problem}. Valid forms:\n  {forms}")


@record
class ModelSpec:
    provider: Provider
    model: str
    base_url: str | None = None
    path: str | None = None
    """For a local GGUF given by path."""

    @property
    def canonical(self) -> str:
        if self.provider == "openai-compatible":
            return f"openai-compatible:{self.model}@{self.base_url}"
        return f"{self.provider}:{self.path or self.model}"


def parse_spec(spec: str) -> ModelSpec:
    text = spec.strip()
    if not text:
        raise ModelSpecError(spec, "it is empty")
    provider, colon, rest = text.partition(":")
    if not colon:
        if provider == "local":
            return ModelSpec("local", DEFAULT_LOCAL)
        raise ModelSpecError(spec, "it has no provider prefix")
    if not rest:
        raise ModelSpecError(spec, f"no model after {provider!r}")
    if provider == "local":
        return _local(spec, rest)
    for named in _NAMED:
        if provider == named:
            return ModelSpec(named, rest)
    if provider == "openai-compatible":
        return _compatible(spec, rest)
    raise ModelSpecError(spec, f"unknown provider {provider!r}")


def _local(spec: str, rest: str) -> ModelSpec:
    if rest in CATALOG:
        return ModelSpec("local", rest)
    if rest.endswith(".gguf") or "/" in rest or rest.startswith("~"):
        path = Path(rest).expanduser()
        return ModelSpec("local", path.stem, path=str(path))
    known = ", ".join(CATALOG)
    raise ModelSpecError(spec, f"unknown local model {rest!r} (known: {known}, or a .gguf path)")


def _compatible(spec: str, rest: str) -> ModelSpec:
    # Split before the URL, not at any "@": model names and URLs may both contain one.
    cut = max(rest.rfind("@http://"), rest.rfind("@https://"))
    model, url = (rest[:cut], rest[cut + 1 :]) if cut >= 0 else (rest, "")
    if not url or not model:
        raise ModelSpecError(spec, "openai-compatible needs MODEL@BASE_URL")
    parsed = urlparse(url)
    if parsed.scheme not in ("http", "https") or not parsed.hostname or url.count("://") != 1:
        raise ModelSpecError(spec, f"{url!r} is not an http(s) base URL")
    try:
        parsed.port  # noqa: B018  # only to validate it
    except ValueError as exc:
        raise ModelSpecError(spec, f"{url!r} has a bad port") from exc
    return ModelSpec("openai-compatible", model, base_url=url.rstrip("/"))
