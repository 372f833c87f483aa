"""`get_model(spec)`: a provider from a spec string, wrapped in the middleware real use needs.

The stack, from the caller inwards, and why in this order:

- `Hooked` (only with hooks): redaction must change the request before anything keys on it.
- `Traced` (only while tracing is on): the call's span covers all that the caller waits for.
- `Cached`: stores only answers that passed structured-output validation, and a hit skips
  every layer below, including the rate limit.
- `Structured`: its one re-ask is a call of its own, retried and limited like any other.
- `Retrying`: each attempt is timed and limited separately, and a backoff does not hold a
  concurrency slot.
- `RateLimited` (when configured), `ConcurrencyLimited` (remote providers; the embedded one
  runs one generation at a time by construction). Its limit is the endpoint's: models
  calling one provider endpoint share it, and it adapts to what the endpoint takes
  (`JURIST_MAX_CONCURRENCY` its ceiling), unless `JURIST_CONCURRENCY` fixes it.
- `TimeLimited` (remote providers), inside the limiters, so that waiting for a slot does not
  count against a call's time. The embedded model times its own generation for the same
  reason: its requests wait in a queue.
- `Priced`: the cost of each provider call, next to the provider.

Stacks are built once per spec and setting per process, so limits are shared by everyone in
the process who uses the same model, and clients and loaded weights are reused.
"""

import threading
from collections.abc import Sequence
from pathlib import Path

from jurist.llm._cache import Cached, ResponseCache
from jurist.llm._catalog import CATALOG
from jurist.llm._concurrency import AdaptiveLimit
from jurist.llm._cost import Priced, PriceTable
from jurist.llm._embedded import EmbeddedModel, LoadOptions
from jurist.llm._hooks import Hooked, RequestHook, ResponseHook
from jurist.llm._limits import ConcurrencyLimited, RateLimited, TimeLimited
from jurist.llm._named import NAMED, endpoint, named_provider, require_key, require_sdk
from jurist.llm._retry import Retrying
from jurist.llm._spec import ModelSpec, parse_spec
from jurist.llm._structured import Structured
from jurist.llm._traced import traced
from jurist.llm._types import Model
from jurist.llm._weights import check_gguf, missing_modules, not_installed, prepare_weights
from jurist.settings import Settings, get_settings

_built: dict[tuple[str, ...], Model] = {}
_caches: dict[Path, ResponseCache] = {}
_limits: dict[tuple[str, int | None, int], AdaptiveLimit] = {}
_lock = threading.Lock()


def get_model(
    spec: str | None = None,
    *,
    settings: Settings | None = None,
    cache: bool | None = None,
    on_request: Sequence[RequestHook] = (),
    on_response: Sequence[ResponseHook] = (),
) -> Model:
    """The model named by `spec` (default: the `JURIST_MODEL` setting, else the embedded
    Qwen2.5 1.5B), ready to use. `cache=False` turns the response cache off for this model.

    A malformed spec raises `ModelSpecError` (a `ValueError`) that lists the valid forms; a
    provider that cannot be used here (runtime, weights, SDK or key missing) raises
    `ModelError(kind="unavailable")` that says how to fix it. Weights load on first use.
    """
    settings = settings or get_settings()
    parsed = parse_spec(spec or settings.model)
    use_cache = settings.cache if cache is None else cache
    if on_request or on_response:
        inner = get_model(spec, settings=settings, cache=use_cache)
        return Hooked(inner, on_request=on_request, on_response=on_response)
    key = (parsed.canonical, str(use_cache), settings.model_dump_json())
    with _lock:
        model = _built.get(key)
        if model is None:
            model = _built[key] = _stack(parsed, settings, use_cache)
    # Outermost, and outside the shared stack, so that turning tracing on needs no new stack.
    return traced(model)


def _stack(spec: ModelSpec, settings: Settings, use_cache: bool) -> Model:
    local = spec.provider == "local"
    model: Model = Priced(_provider(spec, settings), PriceTable.load(settings.prices_file))
    if not local:
        model = TimeLimited(model, default_timeout_s=settings.timeout_s)
        model = ConcurrencyLimited(model, limits=_endpoint_limit(spec, settings))
    if settings.requests_per_minute or settings.tokens_per_minute:
        model = RateLimited(
            model,
            requests_per_minute=settings.requests_per_minute,
            tokens_per_minute=settings.tokens_per_minute,
        )
    model = Retrying(model, max_attempts=settings.max_attempts)
    model = Structured(model)
    if use_cache:
        model = Cached(model, _response_cache(settings.cache_file))
    return model


def _endpoint_limit(spec: ModelSpec, settings: Settings) -> AdaptiveLimit:
    """The limit on calls in flight to the endpoint `spec` calls, shared by every model that
    calls it with the same concurrency settings: a provider's capacity is the endpoint's."""
    if spec.provider == "openai":
        where = f"openai@{settings.openai_base_url or 'https://api.openai.com/v1'}"
    elif spec.provider == "anthropic":
        where = f"anthropic@{settings.anthropic_base_url or 'https://api.anthropic.com'}"
    elif spec.provider in NAMED:
        where = endpoint(spec, settings)
    else:
        where = f"{spec.provider}@{spec.base_url}"
    key = (where, settings.concurrency, settings.max_concurrency)
    limit = _limits.get(key)
    if limit is None:
        fixed = settings.concurrency
        limit = _limits[key] = AdaptiveLimit(
            ceiling=fixed or settings.max_concurrency, adaptive=fixed is None, name=where
        )
    return limit


def _response_cache(path: Path) -> ResponseCache:
    cache = _caches.get(path)
    if cache is None:
        cache = _caches[path] = ResponseCache(path)
    return cache


def _provider(spec: ModelSpec, settings: Settings) -> Model:
    name = spec.canonical
    if spec.provider == "local":
        options = LoadOptions(settings.local_context, settings.local_threads)
        if spec.path is not None:
            path = Path(spec.path)
            check_gguf(path)
            return EmbeddedModel(name, path, options=options)
        known = CATALOG[spec.model]
        missing = missing_modules(known)
        if missing:
            raise not_installed(known, missing)
        models_dir = settings.models_dir
        return EmbeddedModel(
            name,
            locate=lambda: prepare_weights(known, models_dir),
            options=options,
            fingerprint=f"{name}@sha256:{known.sha256}",
        )
    if spec.provider in NAMED:
        return named_provider(spec, settings, PriceTable.load(settings.prices_file))
    if spec.provider == "anthropic":
        require_sdk("anthropic", name)
        from jurist.llm._anthropic import AnthropicModel

        key = require_key(settings.anthropic_api_key, "ANTHROPIC_API_KEY", name)
        return AnthropicModel(spec.model, api_key=key, base_url=settings.anthropic_base_url)
    require_sdk("openai", name)
    from jurist.llm._openai import OpenAIModel

    if spec.provider == "openai":
        key = require_key(settings.openai_api_key, "OPENAI_API_KEY", name)
        return OpenAIModel(spec.model, api_key=key, base_url=settings.openai_base_url, name=name)
    # Never OPENAI_API_KEY here: that secret is OpenAI's, not the third-party server's.
    return OpenAIModel(
        spec.model,
        base_url=spec.base_url,
        api_key=settings.openai_compatible_api_key,
        name=name,
    )
