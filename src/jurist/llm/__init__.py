"""The model layer: one `Model` protocol, providers behind it, and middleware around it.

Judges never talk HTTP or load weights themselves: they build a `Request` and await
`model.complete(request)` on a model from `get_model(spec)`, which comes wrapped in retries,
limits, a response cache, structured-output checking and cost accounting. Every failure is a
`ModelError` with a `kind`. Inside `recording_calls()`, the calls judges make (the messages
sent, the raw answers) are recorded, for a run that keeps them.
"""

from jurist.llm._budget import Budget, Budgeted, Reservation
from jurist.llm._cache import Cached, ResponseCache
from jurist.llm._call_budget import CallBudget
from jurist.llm._catalog import CATALOG, KnownModel
from jurist.llm._concurrency import AdaptiveLimit, ConcurrencyWatch
from jurist.llm._cost import Priced, PriceTable
from jurist.llm._embedded import EmbeddedModel, generation_running, runtime_installed
from jurist.llm._embeddings import (
    Embedder,
    MiniLMEmbedder,
    cosine,
    embedder_available,
    get_embedder,
    rank_by_similarity,
)
from jurist.llm._get_model import get_model
from jurist.llm._hooks import Hooked, RequestHook, ResponseHook
from jurist.llm._limits import (
    ConcurrencyLimited,
    RateLimited,
    TimeLimited,
    estimate_input_tokens,
    estimate_tokens,
)
from jurist.llm._logprobs import field_probabilities, label_probabilities
from jurist.llm._meter import Metered
from jurist.llm._overrides import WithOptions, with_options
from jurist.llm._preflight import ProviderConfigError, check_provider
from jurist.llm._recording import Recorded, RecordedCall, recorded, recording_calls
from jurist.llm._redaction import (
    PresidioRedactor,
    Redactor,
    load_redactor,
    redact_json,
    redaction_hook,
)
from jurist.llm._retry import Retrying
from jurist.llm._spec import ModelSpec, ModelSpecError, parse_spec
from jurist.llm._structured import Structured, extract_json
from jurist.llm._traced import Traced, traced
from jurist.llm._types import (
    Capabilities,
    Choice,
    ErrorKind,
    Message,
    Model,
    ModelError,
    Request,
    Response,
    TokenLogprob,
    TopLogprob,
)
from jurist.llm._weights import WeightsState, prepare_weights, weights_state
from jurist.llm._wrapper import ModelWrapper, complete_sync, innermost

__all__ = [
    "CATALOG",
    "AdaptiveLimit",
    "Budget",
    "Budgeted",
    "Cached",
    "CallBudget",
    "Capabilities",
    "Choice",
    "ConcurrencyLimited",
    "ConcurrencyWatch",
    "EmbeddedModel",
    "Embedder",
    "ErrorKind",
    "Hooked",
    "KnownModel",
    "Message",
    "Metered",
    "MiniLMEmbedder",
    "Model",
    "ModelError",
    "ModelSpec",
    "ModelSpecError",
    "ModelWrapper",
    "PresidioRedactor",
    "PriceTable",
    "Priced",
    "ProviderConfigError",
    "RateLimited",
    "Recorded",
    "RecordedCall",
    "Redactor",
    "Request",
    "RequestHook",
    "Reservation",
    "Response",
    "ResponseCache",
    "ResponseHook",
    "Retrying",
    "Structured",
    "TimeLimited",
    "TokenLogprob",
    "TopLogprob",
    "Traced",
    "WeightsState",
    "WithOptions",
    "check_provider",
    "complete_sync",
    "cosine",
    "embedder_available",
    "estimate_input_tokens",
    "estimate_tokens",
    "extract_json",
    "field_probabilities",
    "generation_running",
    "get_embedder",
    "get_model",
    "innermost",
    "label_probabilities",
    "load_redactor",
    "parse_spec",
    "prepare_weights",
    "rank_by_similarity",
    "recorded",
    "recording_calls",
    "redact_json",
    "redaction_hook",
    "runtime_installed",
    "traced",
    "weights_state",
    "with_options",
]
