"""Checking a provider's configuration before any work: a run of 200 items should stop at
once on a missing key, not store 200 errors that each say "unavailable".

`check_provider(spec)` finds what would make every call fail: a spec that names no known
provider, a provider SDK or embedded runtime that is not installed, an API key that is not
set, a base URL nothing answers at. The last is a TCP connect with a short timeout, so a
refused connection (nothing listening) is known at once and a silent host within seconds.
"""

import importlib.util
import ipaddress
import socket
import urllib.request
from pathlib import Path
from urllib.parse import urlparse

from jurist.core import JuristError
from jurist.llm._catalog import CATALOG
from jurist.llm._embedded import runtime_installed
from jurist.llm._named import SERVERS, server_url
from jurist.llm._spec import ModelSpec, ModelSpecError, parse_spec
from jurist.llm._weights import missing_modules
from jurist.settings import Settings, get_settings

CONNECT_TIMEOUT_S = 3.0
PROVIDERS = (
    "local",
    "openai",
    "openai-compatible",
    "anthropic",
    "ollama",
    "vllm",
    "azure",
    "litellm",
)


class ProviderConfigError(JuristError, ValueError):
    """A provider configuration no call can succeed with: `setting` names what to change
    (an environment variable or the option that gave the spec), `problem` says why."""

    def __init__(self, setting: str, problem: str) -> None:
        super().__init__(f"{setting}: {problem}")
        self.setting = setting
        self.problem = problem


def check_provider(
    spec: str | None = None,
    *,
    settings: Settings | None = None,
    spec_from: str = "JURIST_MODEL",
    timeout_s: float = CONNECT_TIMEOUT_S,
) -> ModelSpec:
    """The parsed spec (default: the `JURIST_MODEL` setting), once its provider is known,
    installed, has its key, and its base URL (when one is configured) accepts a connection;
    else `ProviderConfigError`. `spec_from` names where the spec came from (`--model`, say),
    for the problems that lie in the spec itself. Weights are not loaded here."""
    settings = settings or get_settings()
    text = spec if spec is not None else settings.model
    try:
        parsed = parse_spec(text)
    except ModelSpecError as exc:
        known = ", ".join(PROVIDERS)
        raise ProviderConfigError(
            spec_from, f"{exc.problem} in {text!r} (providers: {known})"
        ) from None
    if parsed.provider == "local":
        _check_local(parsed, spec_from)
    elif parsed.provider == "anthropic":
        _check_sdk("anthropic", spec_from)
        _check_key(settings.anthropic_api_key, "ANTHROPIC_API_KEY", parsed)
        _check_reachable(settings.anthropic_base_url, "ANTHROPIC_BASE_URL", timeout_s)
    elif parsed.provider == "openai":
        _check_sdk("openai", spec_from)
        _check_key(settings.openai_api_key, "OPENAI_API_KEY", parsed)
        _check_reachable(settings.openai_base_url, "OPENAI_BASE_URL", timeout_s)
    elif parsed.provider in SERVERS:
        _check_sdk("openai", spec_from)
        setting = _server_setting(parsed.provider, settings)
        _check_reachable(server_url(parsed.provider, settings), setting, timeout_s)
    elif parsed.provider == "azure":
        _check_sdk("openai", spec_from)
        _check_key(settings.azure_openai_endpoint, "AZURE_OPENAI_ENDPOINT", parsed)
        _check_key(settings.azure_openai_api_key, "AZURE_OPENAI_API_KEY", parsed)
        _check_key(settings.openai_api_version, "OPENAI_API_VERSION", parsed)
        _check_reachable(settings.azure_openai_endpoint, "AZURE_OPENAI_ENDPOINT", timeout_s)
    elif parsed.provider == "litellm":
        # LiteLLM finds each provider's key and endpoint itself: only a proxy is known here.
        _check_sdk("litellm", spec_from)
        _check_reachable(settings.litellm_api_base, "JURIST_LITELLM_API_BASE", timeout_s)
    else:
        _check_sdk("openai", spec_from)
        _check_reachable(parsed.base_url, spec_from, timeout_s)
    return parsed


def _server_setting(provider: str, settings: Settings) -> str:
    """The setting that gave an Ollama or vLLM server's address, to name when it is wrong."""
    if provider == "vllm":
        return "JURIST_VLLM_BASE_URL"
    if settings.ollama_host and not settings.ollama_base_url:
        return "OLLAMA_HOST"
    return "JURIST_OLLAMA_BASE_URL"


def _check_local(spec: ModelSpec, spec_from: str) -> None:
    if not runtime_installed():
        raise ProviderConfigError(
            spec_from,
            f"{spec.canonical} needs the embedded runtime (xllamacpp), which is not installed: "
            "pip install 'jurist[local]', or choose a provider (openai:MODEL, ...)",
        )
    if spec.path is not None:
        if not Path(spec.path).is_file():
            raise ProviderConfigError(spec_from, f"no such model file: {spec.path}")
        return
    missing = missing_modules(CATALOG[spec.model])
    if missing:
        packages = ", ".join(m.replace("_", "-") for m in missing)
        raise ProviderConfigError(
            spec_from, f"the weights of {spec.canonical} are not installed (packages: {packages})"
        )


def _check_sdk(module: str, spec_from: str) -> None:
    if importlib.util.find_spec(module) is None:
        raise ProviderConfigError(
            spec_from, f"the {module} SDK is not installed: pip install 'jurist[{module}]'"
        )


def _check_key(key: str | None, variable: str, spec: ModelSpec) -> None:
    if not key:
        raise ProviderConfigError(
            variable,
            f"not set, and the model {spec.canonical} needs it; set it, or choose another "
            "model with --model or JURIST_MODEL",
        )


def _check_reachable(url: str | None, setting: str, timeout_s: float) -> None:
    """Nothing to check without a configured URL: a provider's public endpoint is not
    probed. Through a proxy, the proxy is what connects: only the client can tell."""
    if not url:
        return
    parsed = urlparse(url)
    host = parsed.hostname
    if host is None or _proxied(parsed.scheme, host):
        return
    try:
        port = parsed.port or (443 if parsed.scheme == "https" else 80)
    except ValueError:
        raise ProviderConfigError(setting, f"{url} has a bad port") from None
    try:
        with socket.create_connection((host, port), timeout=timeout_s):
            pass
    except TimeoutError:
        raise ProviderConfigError(
            setting, f"{url} is unreachable: no answer within {timeout_s:g} s"
        ) from None
    except OSError as exc:
        reason = exc.strerror or str(exc) or type(exc).__name__
        raise ProviderConfigError(setting, f"{url} is unreachable: {reason.lower()}") from None


def _proxied(scheme: str, host: str) -> bool:
    # A proxy elsewhere cannot reach this machine's loopback: such a URL is always direct.
    if host == "localhost" or _loopback(host):
        return False
    return scheme in urllib.request.getproxies() and not urllib.request.proxy_bypass(host)


def _loopback(host: str) -> bool:
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False
