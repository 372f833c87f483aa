"""The providers named after what people run: `ollama:MODEL` and `vllm:MODEL` (the
OpenAI-compatible servers at their usual addresses), `azure:DEPLOYMENT` (Azure OpenAI) and
`litellm:MODEL` (any provider LiteLLM knows).

The first three are the OpenAI provider with another endpoint or client; LiteLLM is a
provider of its own (`_litellm`), imported only when a `litellm:` spec is built, since
importing LiteLLM takes seconds.
"""

import importlib.util
from urllib.parse import urlparse

from jurist.llm._cost import PriceTable
from jurist.llm._spec import ModelSpec
from jurist.llm._types import ErrorKind, Model, ModelError
from jurist.settings import Settings

OLLAMA_URL = "http://127.0.0.1:11434/v1"
VLLM_URL = "http://127.0.0.1:8000/v1"
SERVERS = ("ollama", "vllm")
NAMED = ("ollama", "vllm", "azure", "litellm")


def server_url(provider: str, settings: Settings) -> str:
    """The base URL `ollama:` or `vllm:` calls: the jurist setting, else (Ollama) the
    server's own `OLLAMA_HOST`, else the server's default address on this machine."""
    if provider == "vllm":
        return (settings.vllm_base_url or VLLM_URL).rstrip("/")
    if settings.ollama_base_url:
        return settings.ollama_base_url.rstrip("/")
    if settings.ollama_host:
        return _from_ollama_host(settings.ollama_host)
    return OLLAMA_URL


def _from_ollama_host(host: str) -> str:
    # OLLAMA_HOST is what `ollama serve` binds to and its CLI calls: "host", "host:port" or a
    # URL, without the /v1 of the OpenAI-compatible API. 0.0.0.0 binds everywhere; a client
    # reaches it on the loopback.
    text = host.strip().rstrip("/")
    if "://" not in text:
        text = f"http://{text}"
    parsed = urlparse(text)
    hostname = parsed.hostname or "127.0.0.1"
    if hostname in ("0.0.0.0", "::"):  # read, not bound
        hostname = "127.0.0.1"
    if ":" in hostname:
        hostname = f"[{hostname}]"
    port = parsed.port or 11434
    return f"{parsed.scheme}://{hostname}:{port}{parsed.path}/v1"


def endpoint(spec: ModelSpec, settings: Settings) -> str:
    """What the endpoint of a named provider is called for the limit on calls in flight."""
    if spec.provider in SERVERS:
        return f"{spec.provider}@{server_url(spec.provider, settings)}"
    if spec.provider == "azure":
        return f"azure@{settings.azure_openai_endpoint}"
    route = spec.model.partition("/")[0] if "/" in spec.model else "default"
    return f"litellm@{settings.litellm_api_base or route}"


def named_provider(spec: ModelSpec, settings: Settings, prices: PriceTable) -> Model:
    """The provider of an `ollama:`, `vllm:`, `azure:` or `litellm:` spec; a ModelError
    (unavailable) saying what to install or set when it cannot be used here."""
    name = spec.canonical
    if spec.provider == "litellm":
        require_sdk("litellm", name)
        from jurist.llm._litellm import LiteLLMModel

        return LiteLLMModel(
            spec.model,
            name=name,
            api_base=settings.litellm_api_base,
            api_key=settings.litellm_api_key,
            prices=prices,
        )
    require_sdk("openai", name)
    from jurist.llm._openai import AzureTarget, OpenAIModel

    if spec.provider == "azure":
        resource = require_key(settings.azure_openai_endpoint, "AZURE_OPENAI_ENDPOINT", name)
        key = require_key(settings.azure_openai_api_key, "AZURE_OPENAI_API_KEY", name)
        version = require_key(settings.openai_api_version, "OPENAI_API_VERSION", name)
        target = AzureTarget(resource.rstrip("/"), version)
        return OpenAIModel(spec.model, api_key=key, name=name, azure=target)
    # Ollama wants no key; never OPENAI_API_KEY for either: that secret is OpenAI's.
    server_key = settings.vllm_api_key if spec.provider == "vllm" else None
    return OpenAIModel(
        spec.model, base_url=server_url(spec.provider, settings), api_key=server_key, name=name
    )


def require_sdk(module: str, name: str) -> None:
    if importlib.util.find_spec(module) is None:
        raise ModelError(
            ErrorKind.UNAVAILABLE,
            f"the {module} SDK is not installed: pip install 'jurist[{module}]'",
            model=name,
        )


def require_key(key: str | None, variable: str, name: str) -> str:
    if not key:
        raise ModelError(
            ErrorKind.UNAVAILABLE,
            f"{variable} is not set; set it, or choose another model with JURIST_MODEL",
            model=name,
        )
    return key
