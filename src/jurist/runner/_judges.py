"""Which judge a batch run uses, from one explicit text (`--judge SPEC`).

The forms, and nothing else (a bare word is never guessed at):

    rubric:ID          a rubric of the library (`jurist rubrics list`); rubric:PATH for a
                       rubric file
    criterion:TEXT     one acceptance criterion, asked of the model as yes/no
    PATH.yaml|.yml|.json
                       a judge spec file (`type: contains`, `jury`, `cascade`, ...), or a
                       rubric file (a rubric has `criteria` and no `type`)
"""

import hashlib
import json
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from jurist.core import Judge, JudgeKind, JuristError, judge_name
from jurist.judges import RubricJudge
from jurist.llm import Model
from jurist.rubrics import RubricError, get_rubric, load_rubric
from jurist.settings import get_settings
from jurist.specs import judge_from_spec, judge_shorthand, load_judge_spec

JUDGE_FORMS = (
    "rubric:ID (a rubric of the library, or rubric:PATH to a rubric file)",
    'criterion:"TEXT" (one acceptance criterion)',
    "PATH.yaml, PATH.yml or PATH.json (a judge spec file, or a rubric file)",
)


class JudgeChoiceError(JuristError, ValueError):
    """A judge text that names no judge, or a judge that cannot be built; the message says
    which and lists the forms when the form itself is wrong."""


@dataclass(frozen=True)
class JudgeChoice:
    """A judge chosen by text, with what a run records about it: the text as given, its
    form, and the rubric, criterion or spec file (with its sha256) behind it."""

    judge: Judge
    text: str
    form: str
    model: str | None = None
    details: dict[str, Any] = field(default_factory=dict)

    def describe(self) -> dict[str, Any]:
        return {**describe_judge(self.judge), "text": self.text, "form": self.form, **self.details}


def describe_judge(judge: Judge) -> dict[str, Any]:
    """What a run records about any judge: its name, kind, type and description."""
    kind = getattr(judge, "kind", None)
    return {
        "name": judge_name(judge),
        "kind": kind.value if isinstance(kind, JudgeKind) else None,
        "type": f"{type(judge).__module__}.{type(judge).__qualname__}",
        "description": str(getattr(judge, "description", "") or ""),
    }


def resolve_judge(text: str, *, model: str | Model | None = None) -> JudgeChoice:
    """The judge `text` names (see the module's forms). Model-backed judges ask `model`
    (None: JURIST_MODEL), resolved on first use, so nothing loads here."""
    named = judge_shorthand(text)
    if named is not None:
        form, spec = named
        if isinstance(spec, Path):
            return _file_choice(text, spec, model)
        if form == "rubric":
            return _rubric_choice(text, spec["rubric"], model)
        judge = _built(text, lambda: judge_from_spec(spec, model=model))
        return JudgeChoice(
            judge, text, form, _model_name(judge, model), {"criterion": spec["criterion"]}
        )
    raise JudgeChoiceError(f"judge {text!r} is none of the forms: {'; '.join(JUDGE_FORMS)}")


def _rubric_choice(text: str, ref: str, model: str | Model | None) -> JudgeChoice:
    try:
        rubric = get_rubric(ref)
    except RubricError as exc:
        raise JudgeChoiceError(f"judge {text!r}: {exc}") from exc
    judge: Judge = _built(text, lambda: RubricJudge(rubric, model))
    details: dict[str, Any] = {"rubric": rubric.id, "rubric_version": rubric.version}
    if Path(ref).is_file():
        details["file_sha256"] = _sha256(Path(ref))
    return JudgeChoice(judge, text, "rubric", _model_name(judge, model), details)


def _file_choice(text: str, path: Path, model: str | Model | None) -> JudgeChoice:
    if not path.is_file():
        raise JudgeChoiceError(f"judge {text!r}: no such file")
    try:
        data = yaml.safe_load(path.read_text("utf-8"))
    except (OSError, UnicodeDecodeError, yaml.YAMLError):
        data = None  # load_judge_spec says what is wrong with the file, and where
    details: dict[str, Any] = {"file_sha256": _sha256(path)}
    if isinstance(data, dict) and "type" not in data and "criteria" in data:
        try:
            rubric = load_rubric(path)
        except RubricError as exc:
            raise JudgeChoiceError(f"judge {text!r}: {exc}") from exc
        judge = _built(text, lambda: RubricJudge(rubric, model))
        details |= {"rubric": rubric.id, "rubric_version": rubric.version}
        return JudgeChoice(judge, text, "rubric_file", _model_name(judge, model), details)
    try:
        spec = load_judge_spec(path)
        judge = judge_from_spec(spec, model=model)
    except ValueError as exc:  # JudgeSpecError names the file and the place in the spec
        raise JudgeChoiceError(f"judge {text!r}: {exc}") from exc
    details["definition"] = json.loads(spec.model_dump_json(by_alias=True, exclude_unset=True))
    return JudgeChoice(judge, text, "spec_file", _model_name(judge, model), details)


def _built(text: str, build: Callable[[], Judge]) -> Judge:
    try:
        judge = build()
    except ValueError as exc:
        raise JudgeChoiceError(f"judge {text!r}: {exc}") from exc
    return judge


def _model_name(judge: Judge, model: str | Model | None) -> str | None:
    """The model a run records: none for a deterministic judge, which asks no model."""
    if getattr(judge, "kind", None) is JudgeKind.DETERMINISTIC:
        return None
    if model is None:
        return get_settings().model
    return model if isinstance(model, str) else model.name


def _sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()
