"""OpenAI, and the servers that speak its chat-completions API (vLLM, llama.cpp's server,
LM Studio, Ollama), through the official `openai` SDK.

The SDK's own retries are off (`max_retries=0`): retrying belongs to jurist's Retrying
middleware, which sees every failure as a `ModelError`. Nothing else escapes `complete`
except cancellation.
"""

import dataclasses
import os
import time

import httpx2
import openai

from jurist.llm._http import (
    error_message,
    http_client_options,
    loop_client,
    snippet,
    status_error,
    unexpected_error,
)
from jurist.llm._openai_wire import SchemaMode, chat_payload, parse_completion
from jurist.llm._types import Capabilities, ErrorKind, ModelError, Request, Response
from jurist.llm._wire_json import decode_body, encode_body

OPENAI_URL = "https://api.openai.com/v1"


@dataclasses.dataclass(frozen=True)
class AzureTarget:
    """Where an Azure OpenAI deployment lives: the resource's endpoint
    (https://NAME.openai.azure.com) and the API version every call names."""

    endpoint: str
    api_version: str


CAPABILITIES = Capabilities(
    logprobs=True,
    max_top_logprobs=20,
    json_schema=True,
    json_mode=True,
    seed=True,
    multiple_samples=True,
)

# Local servers ask for no key, but the SDK insists on one.
_NO_KEY = "EMPTY"

_WEAKER: dict[SchemaMode, SchemaMode] = {"json_schema": "json_object", "json_object": "none"}


class OpenAIModel:
    """A model behind the OpenAI chat-completions API.

    Without `base_url` it is OpenAI itself (`openai:gpt-4o-mini`), with the key from `api_key`
    or `OPENAI_API_KEY`. With one it is an OpenAI-compatible server
    (`openai-compatible:llama3@http://127.0.0.1:8080/v1`) and only an explicit `api_key` is
    sent: `OPENAI_API_KEY` is OpenAI's secret, not a third party's.

    Structured output (`schema_mode`, default "json_schema") uses `response_format`
    json_schema, which OpenAI, vLLM, llama.cpp, LM Studio and Ollama all support. A server
    that rejects it (HTTP 400/422 naming response_format or json_schema) is asked again at
    once in "json_object" mode, JSON mode with the schema in the prompt, and, should that be
    rejected too, in "none" mode, the schema in the prompt only. The step down is remembered
    for this instance (`schema_mode`, and `capabilities.json_schema` turns False), so each
    rejection costs one extra request, once.

    A 200 whose body is no chat completion (truncated JSON, an HTML page from a proxy,
    prose) is a SERVER_ERROR, retryable: it is the server's or a gateway's passing fault and
    another attempt may well succeed, unlike UNPARSEABLE, which jurist keeps for a
    well-formed answer whose content cannot be read, which the same request would repeat.
    """

    def __init__(
        self,
        model_id: str,
        *,
        base_url: str | None = None,
        api_key: str | None = None,
        name: str | None = None,
        schema_mode: SchemaMode | None = None,
        capabilities: Capabilities | None = None,
        client: openai.AsyncOpenAI | None = None,
        azure: AzureTarget | None = None,
    ) -> None:
        self.model_id = model_id
        url = base_url.rstrip("/") if base_url else None
        self.base_url = None if url == OPENAI_URL else url
        self._api_key = api_key
        self._azure = azure
        # Retries are the Retrying middleware's, even on a client handed in.
        self._client = None if client is None else client.with_options(max_retries=0)
        if name is not None:
            self._name = name
        elif azure is not None:
            self._name = f"azure:{model_id}"
        elif self.base_url is None:
            self._name = f"openai:{model_id}"
        else:
            self._name = f"openai-compatible:{model_id}@{self.base_url}"
        self.schema_mode: SchemaMode = schema_mode or "json_schema"
        self._capabilities = capabilities or CAPABILITIES

    @property
    def name(self) -> str:
        return self._name

    @property
    def capabilities(self) -> Capabilities:
        return self._capabilities

    def __repr__(self) -> str:
        return f"OpenAIModel({self._name!r})"

    async def complete(self, request: Request) -> Response:
        started = time.perf_counter()
        try:
            client = self._client or self._shared_client()
            while True:
                mode = self.schema_mode
                payload = chat_payload(request, self.model_id, mode)
                try:
                    # The raw route: the SDK's typed `create` spends a third of its CPU
                    # re-walking the payload against its TypedDicts, and its parsed model
                    # would be dumped back to a dict for parse_completion anyway. The body
                    # goes encoded (orjson, see _wire_json), not for the SDK's json.dumps.
                    raw = await client.post(
                        "/chat/completions",
                        cast_to=httpx2.Response,
                        content=encode_body(payload),
                        options={"timeout": request.timeout_s},
                    )
                    break
                except openai.APIStatusError as exc:
                    if request.json_schema is None or not rejects_schema_mode(exc, mode):
                        raise
                    self._weaken(mode)
        except ModelError:
            raise
        except Exception as exc:
            raise self._error(exc) from exc
        latency_ms = (time.perf_counter() - started) * 1000
        try:
            return self._response(raw.content, raw.status_code, request, latency_ms)
        except ModelError:
            raise
        except Exception as exc:
            raise unexpected_error(exc, self._name) from exc

    def _shared_client(self) -> openai.AsyncOpenAI:
        azure, key = self._azure, self._api_key
        if azure is not None:
            deployment = self.model_id
            return loop_client(
                ("azure", azure, deployment, key),
                lambda: _build_azure_client(azure, deployment, key),
            )
        api_key = self._api_key
        if api_key is None and self.base_url is None:
            api_key = os.environ.get("OPENAI_API_KEY")
            if not api_key:
                raise ModelError(
                    ErrorKind.CLIENT_ERROR,
                    "no OpenAI API key: pass api_key= or set OPENAI_API_KEY",
                    model=self._name,
                )
        key = api_key or _NO_KEY
        url = self.base_url
        return loop_client(("openai", url, key), lambda: _build_client(url, key))

    def _weaken(self, rejected: SchemaMode) -> None:
        # Concurrent calls may all be rejected: only the first steps down, so none skips a mode.
        if self.schema_mode != rejected:
            return
        self.schema_mode = _WEAKER[rejected]
        self._capabilities = dataclasses.replace(
            self._capabilities, json_schema=False, json_mode=self.schema_mode == "json_object"
        )

    def _response(self, body: bytes, status: int, request: Request, latency_ms: float) -> Response:
        try:
            data = decode_body(body)
        except ValueError:
            data = None
        if not isinstance(data, dict):
            raise ModelError(
                ErrorKind.SERVER_ERROR,
                f"HTTP {status} with a body that is not a JSON completion: {snippet(body)!r}",
                model=self._name,
                status=status,
            )
        try:
            return parse_completion(
                data,
                model_name=self._name,
                latency_ms=latency_ms,
                want_json=request.json_schema is not None,
            )
        except ModelError as exc:
            if exc.kind is not ErrorKind.UNPARSEABLE:
                raise
            raise ModelError(
                ErrorKind.SERVER_ERROR,
                f"HTTP {status} with a body that is not a chat completion: {snippet(body)!r}",
                model=self._name,
                status=status,
            ) from exc

    def _error(self, exc: Exception) -> ModelError:
        return openai_error(exc, self._name)


def openai_error(exc: Exception, name: str) -> ModelError:
    """The ModelError for what the openai SDK raised, or anything built on its exceptions
    (LiteLLM's subclass them)."""
    if isinstance(exc, openai.APITimeoutError):
        return ModelError(ErrorKind.TIMEOUT, "the request timed out", model=name)
    if isinstance(exc, openai.APIConnectionError):
        why = f": {exc.__cause__!r}" if exc.__cause__ else ""
        return ModelError(ErrorKind.CONNECTION, f"cannot reach the server{why}", model=name)
    if isinstance(exc, openai.APIStatusError):
        message = error_message(exc.body, exc.message)
        if exc.status_code == 400 and exc.code == "content_filter":
            # Azure rejects a prompt its filter flags with a 400.
            return ModelError(ErrorKind.REFUSED, message, model=name, status=exc.status_code)
        if exc.status_code == 429 and exc.code == "insufficient_quota":
            # Out of credit, not out of breath: waiting will not help.
            return ModelError(
                ErrorKind.RATE_LIMITED,
                f"HTTP 429: {message} (check the account's billing)",
                model=name,
                status=429,
                retryable=False,
            )
        return status_error(exc.status_code, message, model=name, headers=exc.response.headers)
    if isinstance(exc, openai.OpenAIError):
        # Raised before any request: no credentials, a bad option.
        return ModelError(ErrorKind.CLIENT_ERROR, str(exc), model=name)
    return unexpected_error(exc, name)


def rejects_schema_mode(exc: openai.APIStatusError, mode: SchemaMode) -> bool:
    """Whether `exc` is a server saying it does not take the `response_format` of `mode`."""
    if mode == "none" or exc.status_code not in (400, 422):
        return False
    said = f"{exc.message} {exc.body}".lower()
    return "response_format" in said or "json_schema" in said


def _build_client(base_url: str | None, api_key: str) -> openai.AsyncOpenAI:
    return openai.AsyncOpenAI(
        api_key=api_key,
        base_url=base_url,
        max_retries=0,  # Retrying middleware's job
        timeout=None,  # each call passes its request's timeout
        http_client=openai.DefaultAsyncHttpxClient(**http_client_options()),
    )


def _build_azure_client(
    azure: AzureTarget, deployment: str, api_key: str | None
) -> openai.AsyncAzureOpenAI:
    # The deployment goes into the base URL (.../openai/deployments/NAME): the raw route
    # sends an encoded body, which the SDK does not read for a deployment name.
    return openai.AsyncAzureOpenAI(
        azure_endpoint=azure.endpoint,
        azure_deployment=deployment,
        api_version=azure.api_version,
        api_key=api_key,
        max_retries=0,  # Retrying middleware's job
        timeout=None,  # each call passes its request's timeout
        http_client=openai.DefaultAsyncHttpxClient(**http_client_options()),
    )
