"""The embedded provider: a GGUF model run in process by the xllamacpp runtime.

Each model file is loaded once per process. Generations run one at a time on one worker
thread for the whole process, whichever embedded model they use: two generations competing
for two cores slow each other down up to tenfold, so requests queue in arrival order
instead. A request still waiting when its caller gives up (cancelled, timed out) leaves the
queue without running. Consecutive requests that share a
prompt prefix reuse the runtime's prompt cache, which is why judges put the long shared part
of a prompt first.
"""

import asyncio
import concurrent.futures
import dataclasses
import importlib.util
import os
import threading
import time
from collections import deque
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from jurist.core import Usage, report
from jurist.llm._openai_wire import chat_payload, parse_completion
from jurist.llm._types import Capabilities, Choice, ErrorKind, ModelError, Request, Response

CAPABILITIES = Capabilities(
    logprobs=True,
    max_top_logprobs=20,
    json_schema=True,
    json_mode=True,
    seed=True,
    multiple_samples=True,
    local=True,
)

_RUNTIME_MISSING = (
    "the embedded runtime (xllamacpp) is not installed. Install it with "
    "`pip install 'jurist[local]'` (from a clone: `uv sync --extra local`), or use a "
    "provider instead, e.g. JURIST_MODEL=openai:gpt-4o-mini with OPENAI_API_KEY set."
)


def runtime_installed() -> bool:
    return importlib.util.find_spec("xllamacpp") is not None


@dataclasses.dataclass(frozen=True)
class LoadOptions:
    context_tokens: int = 8192
    threads: int | None = None


class _Runtime:
    """One loaded model and the single thread its generations run on."""

    def __init__(self, path: Path, options: LoadOptions) -> None:
        import xllamacpp

        threads = options.threads or os.cpu_count() or 1
        params = xllamacpp.CommonParams()
        params.model.path = str(path)
        params.n_ctx = options.context_tokens
        params.n_parallel = 1
        params.cpuparams.n_threads = threads
        params.cpuparams_batch.n_threads = threads
        params.warmup = False
        params.verbosity = 0  # the runtime logs every slot event to stderr otherwise
        started = time.perf_counter()
        self.server = xllamacpp.Server(params)
        self.load_seconds = time.perf_counter() - started
        # Decoding speeds of the latest generations (tokens a second), which the time limit
        # of the next one follows: a machine shared with another process decodes slower.
        self.speeds: deque[float] = deque(maxlen=SPEEDS_KEPT)

    def generate(self, payload: dict[str, Any]) -> tuple[dict[str, Any], float]:
        """The completion and the milliseconds it took, not counting the time in the queue."""
        started = time.perf_counter()
        _generating.set()
        try:
            result: dict[str, Any] = self.server.handle_chat_completions(payload)
        finally:
            _generating.clear()
        return result, (time.perf_counter() - started) * 1000


# How many latest generations the measured speed is taken over, the fewest tokens a
# generation needs to count (a short one is mostly start-up), and how much slower than the
# slowest of them a generation may run before it counts as stuck.
SPEEDS_KEPT = 8
MIN_MEASURED_TOKENS = 16
SPEED_MARGIN = 4.0


def measured_speed(raw: dict[str, Any]) -> float | None:
    """Tokens a second the runtime decoded at in this completion, when it decoded enough
    tokens to tell."""
    timings = raw.get("timings") or {}
    produced = int(timings.get("predicted_n") or 0)
    spent_ms = float(timings.get("predicted_ms") or 0.0)
    if produced < MIN_MEASURED_TOKENS or spent_ms <= 0:
        return None
    return produced / (spent_ms / 1000)


def time_limit_s(request: Request, speeds: Iterable[float]) -> float | None:
    """How long a generation may decode: the request's limit, raised to what its tokens
    take at the slowest recently measured speed, with a margin. A fixed limit would cut
    short a generation that is only slow because another process shares the cores."""
    if request.timeout_s is None:
        return None
    slowest = min(speeds, default=None)
    if slowest is None or request.max_tokens is None:
        return request.timeout_s
    return max(request.timeout_s, SPEED_MARGIN * request.max_tokens / slowest)


_runtimes: dict[tuple[Path, LoadOptions], _Runtime] = {}
_runtimes_lock = threading.Lock()
# The one queue of local generations in this process (see the module's docstring).
_generations = concurrent.futures.ThreadPoolExecutor(
    max_workers=1, thread_name_prefix="jurist-generate"
)
_generating = threading.Event()


def generation_running() -> bool:
    """Whether the runtime is generating right now. A started generation cannot be stopped,
    and the interpreter waits for it at exit: a command interrupted mid-generation uses
    this to decide whether it must leave without waiting."""
    return _generating.is_set()


def _runtime(path: Path, options: LoadOptions) -> _Runtime:
    key = (path.resolve(), options)
    with _runtimes_lock:
        runtime = _runtimes.get(key)
        if runtime is None:
            runtime = _runtimes[key] = _Runtime(path, options)
        return runtime


class EmbeddedModel:
    """A local GGUF model behind the `Model` protocol.

    `path` may be a callable that produces the file on first use (assembling and verifying a
    chunked model takes seconds, and `get_model` should not pay it up front).
    """

    def __init__(
        self,
        name: str,
        path: Path | None = None,
        *,
        locate: Callable[[], Path] | None = None,
        options: LoadOptions | None = None,
        fingerprint: str | None = None,
    ) -> None:
        if not runtime_installed():
            raise ModelError(ErrorKind.UNAVAILABLE, _RUNTIME_MISSING, model=name)
        if (path is None) == (locate is None):
            raise ValueError("EmbeddedModel needs exactly one of path and locate")
        self._name = name
        self._path = path
        self._locate = locate
        self._options = options or LoadOptions()
        self._fingerprint = fingerprint
        self._loading = threading.Lock()
        self._runtime: _Runtime | None = None

    @property
    def name(self) -> str:
        return self._name

    @property
    def capabilities(self) -> Capabilities:
        return CAPABILITIES

    @property
    def fingerprint(self) -> str:
        """Which weights answer: the response cache keys on it, so that new weights under an
        old name never get an old model's answers. Without one given, the file's size and
        modification time stand in for its contents."""
        if self._fingerprint is not None:
            return self._fingerprint
        if self._path is not None:
            info = self._path.stat()
            return f"{self._name}@{info.st_size}:{info.st_mtime_ns}"
        return self._name

    @property
    def load_seconds(self) -> float | None:
        return None if self._runtime is None else self._runtime.load_seconds

    def _load(self) -> _Runtime:
        with self._loading:
            if self._runtime is None:
                # Seconds on the default model, the first time in a process: say so.
                report(f"loading model {self._name}")
                path = self._path
                if path is None:
                    assert self._locate is not None
                    path = self._locate()
                self._runtime = _runtime(path, self._options)
                report(f"model {self._name} loaded")
            return self._runtime

    async def load(self) -> None:
        """Load the weights now rather than on the first request."""
        await asyncio.to_thread(self._load)

    async def complete(self, request: Request) -> Response:
        runtime = self._runtime
        if runtime is None:
            runtime = await asyncio.to_thread(self._load)
        loop = asyncio.get_running_loop()
        choices: list[Choice] = []
        usages: list[Usage] = []
        # The runtime serves one choice per call: samples are drawn one after another, each
        # with its own seed so that they differ and stay reproducible.
        for index in range(request.n):
            limit_s = time_limit_s(request, runtime.speeds)
            payload = self._payload(request, index, limit_s)
            raw, latency_ms = await loop.run_in_executor(_generations, runtime.generate, payload)
            speed = measured_speed(raw)
            if speed is not None:
                runtime.speeds.append(speed)
            response = self._response(raw, request, latency_ms, limit_s)
            choices.extend(response.choices)
            usages.append(response.usage)
        return Response.from_choices(choices, Usage.total(usages) or Usage())

    def _payload(self, request: Request, index: int, limit_s: float | None) -> dict[str, Any]:
        single = dataclasses.replace(request, n=1)
        payload = chat_payload(single, self._name, "json_schema")
        if request.seed is not None:
            payload["seed"] = request.seed + index
        if limit_s is not None:
            # A soft limit: the runtime stops at the first newline after it has passed.
            payload["t_max_predict_ms"] = int(limit_s * 1000)
        return payload

    def _response(
        self, raw: dict[str, Any], request: Request, latency_ms: float, limit_s: float | None
    ) -> Response:
        error = raw.get("error")
        if error is not None:
            raise _runtime_error(self._name, error)
        response = parse_completion(
            raw,
            model_name=self._name,
            latency_ms=latency_ms,
            want_json=request.json_schema is not None,
        )
        if limit_s is not None and _stopped_by_time(raw, request, limit_s):
            raise ModelError(
                ErrorKind.TIMEOUT,
                f"generation passed the {limit_s:g} s limit and was cut short",
                model=self._name,
                retryable=False,
            )
        return response


def _stopped_by_time(raw: dict[str, Any], request: Request, limit_s: float) -> bool:
    timings = raw.get("timings") or {}
    choices = raw.get("choices") or [{}]
    produced = int(timings.get("predicted_n") or 0)
    return bool(
        choices[0].get("finish_reason") == "length"
        and float(timings.get("predicted_ms") or 0.0) >= limit_s * 1000
        and (request.max_tokens is None or produced < request.max_tokens)
    )


def _runtime_error(name: str, error: Any) -> ModelError:
    message = str(error.get("message", error)) if isinstance(error, dict) else str(error)
    code = error.get("code") if isinstance(error, dict) else None
    status = code if isinstance(code, int) else None
    kind = ErrorKind.CLIENT_ERROR if status is not None and status < 500 else ErrorKind.SERVER_ERROR
    if isinstance(error, dict) and error.get("type") == "exceed_context_size_error":
        message += " (the embedded model's window is JURIST_LOCAL_CONTEXT tokens)"
    # A local runtime fails the same way twice: retrying would only wait.
    return ModelError(kind, message, model=name, status=status, retryable=False)
