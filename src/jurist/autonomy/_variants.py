"""Judge variants: one acceptance criterion asked in different ways, so a tournament can
find the way a judge model answers best.

A variant is data (an id, the technique that made it, the criterion text it asks, whether
the reason comes before the answer, and the prompt template), and `build(model)` turns it
into a `CriterionJudge`. The techniques are deterministic rewrites of a base criterion;
`generate_variants` adds rewordings written by a model. Variants are kept as a YAML list.
"""

import re
from collections.abc import Mapping, Sequence
from enum import StrEnum
from pathlib import Path
from typing import Any

import yaml
from pydantic import (
    BaseModel,
    ConfigDict,
    JsonValue,
    StrictBool,
    StrictStr,
    ValidationError,
    field_validator,
)

from jurist.core import Cause, Judgment, JuristError
from jurist.judges import (
    CallPolicy,
    CriterionJudge,
    Failure,
    ModelRef,
    Unreadable,
    ask,
    json_object,
)
from jurist.llm import Model, Response
from jurist.prompts import Prompt, PromptError, PromptTemplate, answer_schema

STRICT_TEMPLATE = "autonomy_variant_strict"
REWORDINGS_TEMPLATE = "autonomy_variants"
# A rewording is one sentence: ~80 tokens each, and a little for the JSON around them.
REWORDING_TOKENS = 80
# The shown problems of a bad variants file; every one is in VariantError.problems.
_SHOWN_PROBLEMS = 3
_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]*")


class Technique(StrEnum):
    """How a variant was made from its base criterion."""

    PLAIN = "plain"  # the criterion as given
    REASON_FIRST = "reason_first"  # a one-sentence reason written before the answer
    EXPLICIT = "explicit"  # "Answer yes only if ...; otherwise answer no."
    CHECKLIST = "checklist"  # the criterion, then: check each part of it on its own
    STRICT = "strict"  # a template that hunts for a violation before deciding
    REWORDED = "reworded"  # a model's rewording of the criterion
    CUSTOM = "custom"  # written by hand


# The deterministic techniques, in the order `seed_variants` takes them.
DETERMINISTIC: tuple[Technique, ...] = (
    Technique.PLAIN,
    Technique.REASON_FIRST,
    Technique.EXPLICIT,
    Technique.CHECKLIST,
    Technique.STRICT,
)


class VariantError(JuristError, ValueError):
    """Variants that cannot be read, written or made. The message names the place
    (`variants[2].criterion`) and the problem; `problems` holds every one."""

    def __init__(self, problems: Sequence[str], source: str | None = None) -> None:
        self.problems = tuple(problems)
        self.source = source
        shown = "; ".join(self.problems[:_SHOWN_PROBLEMS])
        if len(self.problems) > _SHOWN_PROBLEMS:
            shown += f"; and {len(self.problems) - _SHOWN_PROBLEMS} more"
        super().__init__(f"{source}: {shown}" if source else shown)


def is_template_path(template: str) -> bool:
    """Whether a variant's `template` names a file rather than a package template: a
    package template is a bare name (`criterion`), a file has a separator or ends in .j2."""
    return "/" in template or "\\" in template or template.endswith(".j2")


class JudgeVariant(BaseModel):
    """One way of asking a criterion. `template` is a package template name (e.g.
    "autonomy_variant_strict") or a path to a template file; None is the criterion
    judge's own template."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    id: StrictStr
    technique: Technique
    criterion: StrictStr
    reason_first: StrictBool = False
    template: StrictStr | None = None
    notes: StrictStr = ""

    @field_validator("id")
    @classmethod
    def _id_is_a_file_name(cls, value: str) -> str:
        # Ids name the spec files winners are saved to, so they must be safe file names.
        if not _ID.fullmatch(value):
            raise ValueError(
                f"{value!r} is not an id: use letters, digits, '_', '.' and '-', "
                "starting with a letter or digit"
            )
        return value

    @field_validator("criterion")
    @classmethod
    def _criterion_not_blank(cls, value: str) -> str:
        text = value.strip()
        if not text:
            raise ValueError("blank: a variant needs a criterion for its judge to ask")
        return text

    @field_validator("template")
    @classmethod
    def _template_not_blank(cls, value: str | None) -> str | None:
        if value is not None and not value.strip():
            raise ValueError("blank: leave it out for the criterion judge's own template")
        return value.strip() if value is not None else None

    def prompt_template(self) -> PromptTemplate:
        """The template the variant's judge renders (PromptError if it cannot be loaded)."""
        if self.template is None:
            return PromptTemplate.named("criterion")
        if is_template_path(self.template):
            return PromptTemplate.file(self.template)
        return PromptTemplate.named(self.template)

    def build(self, model: Model | str | None = None) -> CriterionJudge:
        """The variant as a criterion judge named after it, asking `model` (a Model, a
        spec string, or None for JURIST_MODEL; resolved on first use)."""
        return CriterionJudge(
            self.criterion,
            model,
            reason_first=self.reason_first,
            template=self.prompt_template(),
            name=self.id,
        )


# --- the techniques -------------------------------------------------------------------


def _without_end(text: str) -> str:
    return text.rstrip().rstrip(".!;:").rstrip()


def _as_sentence(text: str) -> str:
    return text if text.endswith((".", "!", "?")) else f"{text}."


def _lower_first(text: str) -> str:
    """The first letter in lower case, so the criterion reads on after "only if";
    a leading acronym or name in capitals ("JSON", "API") is kept."""
    first = text.split(maxsplit=1)[0] if text.split() else ""
    if len(first) > 1 and not first[1:].islower():
        return text
    return text[:1].lower() + text[1:]


def technique_variant(criterion: str, technique: Technique | str) -> JudgeVariant:
    """The variant of `criterion` that a deterministic technique makes; its id is the
    technique's name."""
    base = JudgeVariant(id="base", technique=Technique.PLAIN, criterion=criterion).criterion
    chosen = Technique(technique)
    if chosen is Technique.PLAIN:
        return JudgeVariant(id="plain", technique=chosen, criterion=base)
    if chosen is Technique.REASON_FIRST:
        return JudgeVariant(
            id="reason_first",
            technique=chosen,
            criterion=base,
            reason_first=True,
            notes="the judge writes a one-sentence reason before its answer",
        )
    if chosen is Technique.EXPLICIT:
        stem = _without_end(base)
        if stem.endswith("?"):
            # A question does not read on after "only if"; say what "yes" means instead.
            text = f"{stem} Answer yes only if it clearly does; otherwise answer no."
        else:
            text = f"Answer yes only if {_lower_first(stem)}; otherwise answer no."
        return JudgeVariant(
            id="explicit",
            technique=chosen,
            criterion=text,
            notes="the criterion restated as when to answer yes",
        )
    if chosen is Technique.CHECKLIST:
        text = (
            f"{_as_sentence(_without_end(base) or base)} Check each part of this criterion "
            "on its own, and answer yes only if every part holds."
        )
        return JudgeVariant(
            id="checklist",
            technique=chosen,
            criterion=text,
            notes="the criterion decomposed: every part checked on its own",
        )
    if chosen is Technique.STRICT:
        return JudgeVariant(
            id="strict",
            technique=chosen,
            criterion=base,
            template=STRICT_TEMPLATE,
            notes="a template that looks for any violation before answering",
        )
    raise ValueError(
        f"technique: {chosen.value!r} is not deterministic; the deterministic ones are "
        f"{', '.join(t.value for t in DETERMINISTIC)}"
    )


def rewordings_schema(count: int) -> dict[str, JsonValue]:
    """The rewordings asked for (autonomy_variants.schema.json): at most `count`."""
    schema: dict[str, Any] = answer_schema(REWORDINGS_TEMPLATE)
    schema["properties"]["rewordings"]["maxItems"] = count
    return schema


def read_rewordings(answer: Mapping[str, Any], criterion: str, count: int) -> list[str]:
    """The distinct rewordings in a model answer, without the criterion itself."""
    items = answer.get("rewordings")
    if not isinstance(items, list):
        raise Unreadable('the answer has no "rewordings" array')
    seen = {" ".join(criterion.split()).casefold()}
    found: list[str] = []
    for index, item in enumerate(items):
        if not isinstance(item, str):
            raise Unreadable(f"rewordings[{index}] is a {type(item).__name__}, not text")
        text = " ".join(item.split())
        if text and text.casefold() not in seen:
            seen.add(text.casefold())
            found.append(text)
    return found[:count]


async def generate_variants(
    criterion: str, n: int, model: Model | str | None = None, *, policy: CallPolicy | None = None
) -> list[JudgeVariant]:
    """Up to `n` rewordings of `criterion` written by `model`, as variants `reworded-1`,
    `reworded-2`, ... (fewer when the model repeats itself or the criterion).

    A model failure raises its ModelError; an answer that holds no list of rewordings
    raises VariantError. `policy` is how the model is called (the settings' when None).
    """
    if isinstance(n, bool) or not isinstance(n, int) or n < 1:
        raise ValueError(f"n: {n!r} is not a whole number >= 1")
    base = JudgeVariant(id="base", technique=Technique.PLAIN, criterion=criterion).criterion
    chosen = ModelRef(model).get()
    prompt = Prompt(PromptTemplate.named(REWORDINGS_TEMPLATE), rewordings_schema(n))

    def read(response: Response) -> list[str]:
        return read_rewordings(json_object(response), base, n)

    got = await ask(
        chosen,
        prompt.reading(read),
        policy=(policy or CallPolicy.from_settings()).but(max_tokens=REWORDING_TOKENS * n + 40),
        judge="variants",
        variables={"criterion": base, "count": n},
    )
    if isinstance(got, Judgment):
        failure = Failure.of(got)
        if failure.cause is Cause.PROMPT:
            raise PromptError(failure.error)
        if failure.cause is Cause.UNPARSEABLE and "answer" in got.metadata:
            raise VariantError([f"rewordings from {chosen.name}: {failure.error}"])
        raise failure.model_error() or VariantError([got.reasoning])
    rewordings = got.value
    return [
        JudgeVariant(
            id=f"reworded-{number}",
            technique=Technique.REWORDED,
            criterion=text,
            notes=f"a rewording by {chosen.name}",
        )
        for number, text in enumerate(rewordings, start=1)
    ]


async def seed_variants(
    criterion: str,
    n: int = 5,
    model: Model | str | None = None,
    *,
    policy: CallPolicy | None = None,
) -> list[JudgeVariant]:
    """`n` variants of `criterion`: the deterministic techniques first (plain,
    reason_first, explicit, checklist, strict), then model rewordings for the rest.

    More than five need a model; the model may give fewer rewordings than asked (see
    `generate_variants`), and then fewer than `n` variants come back.
    """
    if isinstance(n, bool) or not isinstance(n, int) or n < 1:
        raise ValueError(f"n: {n!r} is not a whole number >= 1")
    variants = [technique_variant(criterion, t) for t in DETERMINISTIC[:n]]
    wanted = n - len(variants)
    if wanted > 0:
        if model is None:
            raise ValueError(
                f"n: {n} variants need a model to reword the criterion; without one there "
                f"are {len(DETERMINISTIC)} techniques"
            )
        variants += await generate_variants(criterion, wanted, model, policy=policy)
    return variants


# --- the variants file ------------------------------------------------------------------


def _error_message(error: Mapping[str, Any]) -> str:
    kind = error["type"]
    ctx = error.get("ctx") or {}
    if kind == "missing":
        return "required field is missing"
    if kind == "extra_forbidden":
        return f"unknown field; a variant takes: {', '.join(JudgeVariant.model_fields)}"
    if kind == "value_error" and "error" in ctx:
        return str(ctx["error"])
    return str(error["msg"])


def check_distinct_ids(variants: Sequence[JudgeVariant], where: str = "variants") -> None:
    """VariantError naming the first repeated id."""
    first: dict[str, int] = {}
    for index, variant in enumerate(variants):
        if variant.id in first:
            raise VariantError(
                [
                    f"{where}[{index}].id: {variant.id!r} is already the id of "
                    f"{where}[{first[variant.id]}]"
                ]
            )
        first[variant.id] = index


def parse_variants(data: Any, source: str | None = None) -> list[JudgeVariant]:
    """Variants from parsed YAML or JSON data: a non-empty list of variant objects with
    distinct ids. VariantError names `variants[i].field` and the problem."""
    if not isinstance(data, list):
        kind = "nothing" if data is None else f"a {type(data).__name__}"
        raise VariantError([f"variants: expected a list of variants, got {kind}"], source)
    if not data:
        raise VariantError(["variants: the list is empty"], source)
    problems: list[str] = []
    variants: list[JudgeVariant] = []
    for index, entry in enumerate(data):
        where = f"variants[{index}]"
        if not isinstance(entry, Mapping):
            problems.append(f"{where}: expected an object, got {type(entry).__name__}")
            continue
        try:
            variants.append(JudgeVariant.model_validate(entry))
        except ValidationError as exc:
            for error in exc.errors():
                field = ".".join(str(part) for part in error["loc"])
                place = f"{where}.{field}" if field else where
                problems.append(f"{place}: {_error_message(error)}")
    if problems:
        raise VariantError(problems, source)
    try:
        check_distinct_ids(variants)
    except VariantError as exc:
        raise VariantError(exc.problems, source) from None
    return variants


def load_variants(path: str | Path) -> list[JudgeVariant]:
    """The variants of a YAML file (JSON is YAML too). VariantError names the file, the
    entry and the field."""
    path = Path(path)
    source = str(path)
    try:
        text = path.read_text("utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
        raise VariantError([f"cannot be read: {reason}"], source) from exc
    try:
        data = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        at = f" at line {mark.line + 1} column {mark.column + 1}" if mark else ""
        reason = getattr(exc, "problem", None) or str(exc)
        raise VariantError([f"not valid YAML{at}: {reason}"], source) from exc
    return parse_variants(data, source)


def variants_data(variants: Sequence[JudgeVariant]) -> list[dict[str, Any]]:
    """The variants as plain data, leaving out fields at their defaults."""
    return [v.model_dump(mode="json", exclude_defaults=True) for v in variants]


def save_variants(variants: Sequence[JudgeVariant], path: str | Path) -> Path:
    """Writes the variants as a YAML list that `load_variants` reads back unchanged."""
    check_distinct_ids(variants)
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    text = yaml.safe_dump(variants_data(variants), sort_keys=False, allow_unicode=True, width=100)
    path.write_text(text, "utf-8")
    return path
