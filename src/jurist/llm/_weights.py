"""Finding, assembling and verifying the embedded models' GGUF files.

The weight packages are located with `importlib.util.find_spec` and never imported: their
code is not ours to run. A chunked model is assembled once into the models directory, hashed
while it is written, and published by an atomic rename, so a crash or a second process never
leaves a half-written model behind. A verified file gets a small stamp beside it (size, mtime,
sha256) so later processes skip re-hashing a gigabyte; a file that no longer matches its stamp
is hashed again. Stamps live in the models directory, never beside a file in site-packages.
"""

import contextlib
import hashlib
import importlib.util
import json
import logging
import os
import tempfile
from pathlib import Path

from jurist.core import record
from jurist.llm._catalog import KnownModel
from jurist.llm._types import ErrorKind, ModelError

log = logging.getLogger(__name__)

_BLOCK = 8 * 1024 * 1024
GGUF_MAGIC = b"GGUF"


@record
class WeightsState:
    """What `jurist models` shows for one known model."""

    name: str
    installed: bool
    missing_modules: tuple[str, ...]
    ready: bool
    path: str | None


def package_dir(module: str) -> Path | None:
    spec = importlib.util.find_spec(module)
    if spec is None or not spec.submodule_search_locations:
        return None
    return Path(next(iter(spec.submodule_search_locations)))


def missing_modules(model: KnownModel) -> tuple[str, ...]:
    return tuple(m for m in model.modules if package_dir(m) is None)


def part_files(model: KnownModel) -> list[Path]:
    """The files whose concatenation, in order, is the model's GGUF."""
    missing = missing_modules(model)
    if missing:
        raise not_installed(model, missing)
    if model.layout == "file":
        directory = package_dir(model.modules[0])
        assert directory is not None
        assert model.file_name is not None
        return [directory / model.file_name]
    parts: list[Path] = []
    for module in model.modules:
        directory = package_dir(module)
        assert directory is not None
        found = sorted((directory / "data").glob("part*.bin"))
        if len(found) != 1:
            raise ModelError(
                ErrorKind.UNAVAILABLE,
                f"package {module} should hold exactly one data/part*.bin, found {len(found)}",
                model=model.spec,
            )
        parts.extend(found)
    return parts


def not_installed(model: KnownModel, missing: tuple[str, ...]) -> ModelError:
    shown = ", ".join(m.replace("_", "-") for m in missing[:3])
    more = f" and {len(missing) - 3} more" if len(missing) > 3 else ""
    if model.extra is not None:
        how = f"`{model.install}` (from a clone: `uv sync --extra {model.extra}`)"
    else:
        how = f"`uv sync --group {model.group}` in a clone of jurist (they are for its tests)"
    return ModelError(
        ErrorKind.UNAVAILABLE,
        f"the weights of {model.spec} are not installed (missing {shown}{more}). Install them "
        f"with {how}, or use a provider instead, e.g. JURIST_MODEL=openai:gpt-4o-mini "
        "with OPENAI_API_KEY set.",
        model=model.spec,
    )


def target_path(model: KnownModel, models_dir: Path) -> Path:
    if model.layout == "file":
        return part_files(model)[0]
    return models_dir / f"{model.name}.gguf"


def weights_state(model: KnownModel, models_dir: Path) -> WeightsState:
    missing = missing_modules(model)
    if missing:
        return WeightsState(model.name, False, missing, False, None)
    path = target_path(model, models_dir)
    ready = path.exists() and _stamp_matches(models_dir, model, path)
    return WeightsState(model.name, True, (), ready, str(path))


def prepare_weights(model: KnownModel, models_dir: Path) -> Path:
    """The verified GGUF of `model`, assembling it first when needed.

    A file that fails verification is removed and rebuilt once from the packages; if the
    rebuilt file fails too, the packages themselves are wrong: that is an error, and nothing
    is left behind.
    """
    path = target_path(model, models_dir)
    if path.exists():
        if _stamp_matches(models_dir, model, path):
            return path
        actual = sha256_of(path)
        if actual == model.sha256:
            _write_stamp(models_dir, model, path)
            return path
        if model.layout == "file":
            raise _mismatch(model, path, actual)
        log.warning("%s does not match its sha256; removing it and assembling again", path)
        path.unlink()
    if model.layout == "file":
        actual = sha256_of(path)
        if actual != model.sha256:
            raise _mismatch(model, path, actual)
        _write_stamp(models_dir, model, path)
        return path
    _assemble(model, path)
    _write_stamp(models_dir, model, path)
    return path


def _assemble(model: KnownModel, path: Path) -> None:
    parts = part_files(model)
    path.parent.mkdir(parents=True, exist_ok=True)
    digest = hashlib.sha256()
    fd, temp_name = tempfile.mkstemp(prefix=f".{model.name}.", suffix=".part", dir=path.parent)
    temp = Path(temp_name)
    try:
        with os.fdopen(fd, "wb") as out:
            for part in parts:
                with part.open("rb") as chunk:
                    while block := chunk.read(_BLOCK):
                        digest.update(block)
                        out.write(block)
            out.flush()
            os.fsync(out.fileno())
        actual = digest.hexdigest()
        if actual != model.sha256:
            raise _mismatch(model, path, actual)
        temp.chmod(0o644)
        temp.replace(path)
    finally:
        with contextlib.suppress(FileNotFoundError):
            temp.unlink()


def _mismatch(model: KnownModel, path: Path, actual: str) -> ModelError:
    return ModelError(
        ErrorKind.UNAVAILABLE,
        f"the weights of {model.spec} do not match their sha256: expected {model.sha256}, got "
        f"{actual} from {path}. The file was not kept; reinstall the `{model.extra}` extra "
        "with the pinned package versions.",
        model=model.spec,
    )


def sha256_of(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as file:
        while block := file.read(_BLOCK):
            digest.update(block)
    return digest.hexdigest()


def check_gguf(path: Path) -> None:
    """A clear error for a path that is not a GGUF model, before the runtime sees it."""
    if not path.is_file():
        raise ModelError(ErrorKind.UNAVAILABLE, f"no model file at {path}")
    with path.open("rb") as file:
        if file.read(4) != GGUF_MAGIC:
            raise ModelError(ErrorKind.UNAVAILABLE, f"{path} is not a GGUF file")


def _stamp_path(models_dir: Path, model: KnownModel) -> Path:
    return models_dir / f"{model.name}.verified.json"


def _stamp_of(model: KnownModel, path: Path) -> dict[str, object]:
    info = path.stat()
    return {
        "sha256": model.sha256,
        "path": str(path),
        "size": info.st_size,
        "mtime_ns": info.st_mtime_ns,
    }


def _stamp_matches(models_dir: Path, model: KnownModel, path: Path) -> bool:
    try:
        stamp = json.loads(_stamp_path(models_dir, model).read_text())
        return bool(stamp == _stamp_of(model, path))
    except (OSError, ValueError):
        return False


def _write_stamp(models_dir: Path, model: KnownModel, path: Path) -> None:
    # Without a writable models directory the file is simply hashed again next time.
    with contextlib.suppress(OSError):
        models_dir.mkdir(parents=True, exist_ok=True)
        _stamp_path(models_dir, model).write_text(json.dumps(_stamp_of(model, path)))
