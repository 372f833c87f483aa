"""The registry of spec types: each `type` names a constructor, and its spec model is made
from that constructor's signature (parameter names, annotations and defaults), so a
parameter is declared once, on the constructor.

An entry may narrow a parameter's type to its data form (a rubric id rather than a Rubric
or a path), add a spec-only field, skip a parameter a spec cannot give (a prebuilt
extractor), and adapt the built keywords before the constructor is called."""

import inspect
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Annotated, Any, Literal, Union, get_type_hints

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, create_model

from jurist.core import Judge
from jurist.llm import Model
from jurist.specs._errors import FIELDS_BY_TYPE, SpecError
from jurist.specs._fields import COMMON, strict

# Parameters a spec never gives: the model is the caller's, never the spec's.
_NEVER = frozenset({"self", "model", "policy"})


def _type_is_required(schema: dict[str, Any]) -> None:
    # `type` has a default so Python code can write a spec model without it, but in data
    # it is the discriminator and must be there: the schema says so.
    if "type" in schema.get("properties", {}):
        schema["required"] = ["type", *schema.get("required", [])]


class Spec(BaseModel):
    """The base of every spec model."""

    model_config = ConfigDict(
        json_schema_extra=_type_is_required,
        extra="forbid",
        frozen=True,
        allow_inf_nan=False,
        validate_by_name=True,
        validate_by_alias=True,
        serialize_by_alias=True,
    )


@dataclass(frozen=True)
class Site:
    """Where in the spec something is being built, and the model its judges ask."""

    path: str
    model: Model | str | None

    def at(self, part: str | int) -> "Site":
        if isinstance(part, int):
            return Site(f"{self.path}[{part}]", self.model)
        return Site(f"{self.path}.{part}" if self.path else part, self.model)

    def error(self, message: str) -> SpecError:
        return SpecError.at(self.path, message)


Adapt = Callable[[Any, dict[str, Any], Site], dict[str, Any]]


@dataclass(frozen=True)
class Entry:
    """One `type`: its constructor, its spec model, and how spec values become the
    constructor's arguments."""

    kind: str
    role: Literal["judge", "strategy"]
    construct: Callable[..., Any]
    spec: type[Spec]
    parameters: Mapping[str, inspect.Parameter]  # the constructor's, by name, that a spec gives
    takes_model: bool
    adapt: Adapt | None = None
    errors_at: str | None = None  # where every error of the constructor goes, if one place
    fields: tuple[str, ...] = ()  # wire names, for "unknown field" messages


def _signature(construct: Callable[..., Any]) -> tuple[dict[str, inspect.Parameter], Any]:
    """The constructor's parameters, following `**options` into the base class's
    constructor it forwards them to, and their annotations."""
    function = construct.__init__ if isinstance(construct, type) else construct  # type: ignore[misc]
    parameters = dict(inspect.signature(function).parameters)
    hints = get_type_hints(function, include_extras=True)
    if isinstance(construct, type):
        for base in construct.__mro__[1:]:
            forwarded = any(p.kind is p.VAR_KEYWORD for p in parameters.values())
            if not forwarded or "__init__" not in vars(base):
                continue
            parameters = {n: p for n, p in parameters.items() if p.kind is not p.VAR_KEYWORD}
            inherited = inspect.signature(base.__init__).parameters  # type: ignore[misc]
            parameters |= {n: p for n, p in inherited.items() if n not in parameters}
            hints = get_type_hints(base.__init__, include_extras=True) | hints  # type: ignore[misc]
    return parameters, hints


def _title(kind: str) -> str:
    return "".join(part.title() for part in kind.split("_")) + "Spec"


class Registry(Mapping[str, Entry]):
    """Spec types by name. Judges and strategies share the namespace of `type` names; the
    judge union and the strategy union are rebuilt when a type is registered."""

    def __init__(self) -> None:
        self._entries: dict[str, Entry] = {}
        self._extra_models: list[type[BaseModel]] = []
        self._adapter: TypeAdapter[Any] | None = None

    def __getitem__(self, kind: str) -> Entry:
        return self._entries[kind]

    def __iter__(self) -> Iterator[str]:
        return iter(self._entries)

    def __len__(self) -> int:
        return len(self._entries)

    def judge_types(self) -> list[str]:
        return [k for k, e in self._entries.items() if e.role == "judge"]

    def register(
        self,
        kind: str,
        construct: Callable[..., Any],
        *,
        role: Literal["judge", "strategy"] = "judge",
        fields: Mapping[str, Any] | None = None,
        skip: Sequence[str] = (),
        adapt: Adapt | None = None,
        errors_at: str | None = None,
        doc: str | None = None,
    ) -> Entry:
        """Register `kind`, built by `construct`. `fields` gives a parameter's data type
        (its constructor default kept), or `(type, default)` for a spec-only field or a
        spec default of None that means the judge's own choice."""
        parameters, hints = _signature(construct)
        given = {**COMMON, **(fields or {})}
        definitions: dict[str, Any] = {"type": (Literal[kind], kind)}
        used: dict[str, inspect.Parameter] = {}
        for name, parameter in parameters.items():
            if name in _NEVER or name in skip or parameter.kind is parameter.VAR_KEYWORD:
                continue
            if name not in given and name not in hints:
                continue
            used[name] = parameter
            definitions[_attribute_name(name)] = _field(
                name, given.get(name), parameter, hints.get(name)
            )
        for name, value in (fields or {}).items():
            if name not in used:  # a spec-only field: `(type, default)`
                annotation, default = value
                definitions[_attribute_name(name)] = _field(name, (annotation, default), None, None)
        model = create_model(
            _title(kind),
            __base__=Spec,
            __doc__=doc or inspect.getdoc(construct),
            **definitions,
        )
        wire = sorted([*used, *(n for n in fields or {} if n not in used)])
        entry = Entry(
            kind,
            role,
            construct,
            model,
            used,
            "model" in parameters,
            adapt,
            errors_at,
            tuple(wire),
        )
        self._entries[kind] = entry
        FIELDS_BY_TYPE[kind] = wire
        self._adapter = None
        return entry

    def unregister(self, kind: str) -> None:
        """Forget `kind` (a KeyError when it is not registered)."""
        del self._entries[kind]
        FIELDS_BY_TYPE.pop(kind, None)
        self._adapter = None

    def add_model(self, model: type[BaseModel]) -> None:
        """A model that is not a `type` but holds specs (a cascade's tier): rebuilt with
        the unions."""
        self._extra_models.append(model)
        self._adapter = None

    def unions(self) -> dict[str, Any]:
        def union(role: str) -> Any:
            models = tuple(e.spec for e in self._entries.values() if e.role == role)
            return Annotated[Union[models], Field(discriminator="type")]  # noqa: UP007

        return {"JudgeSpec": union("judge"), "StrategySpec": union("strategy")}

    def adapter(self) -> TypeAdapter[Any]:
        """The validator of a judge spec, the models holding specs rebuilt first."""
        if self._adapter is None:
            namespace = {**self.unions(), **{m.__name__: m for m in self._extra_models}}
            for model in (*self._extra_models, *(e.spec for e in self._entries.values())):
                _forget_unions(model)
                model.model_rebuild(force=True, _types_namespace=namespace)
            self._adapter = TypeAdapter(namespace["JudgeSpec"])
        return self._adapter


def _forget_unions(model: type[BaseModel]) -> None:
    """Mark the fields that hold specs as unresolved, so that a rebuild reads the unions as
    they are now: a type registered after a holder (a jury, a cascade's tier) was first
    built must be accepted inside it too. pydantic re-evaluates only fields it has not
    completed, from the annotation they were declared with."""
    declared = {
        name: annotation
        for klass in reversed(model.__mro__)
        for name, annotation in vars(klass).get("__annotations__", {}).items()
    }
    for name, field in model.__pydantic_fields__.items():
        raw = declared.get(name)
        if raw is not None and ("JudgeSpec" in str(raw) or "StrategySpec" in str(raw)):
            field._original_annotation = raw  # noqa: SLF001 - see the docstring
            field._complete = False  # noqa: SLF001


def _field(
    name: str, given: Any, parameter: inspect.Parameter | None, hint: Any
) -> tuple[Any, Any]:
    """One spec field: (annotation, FieldInfo)."""
    if isinstance(given, tuple):
        annotation, default = given
    else:
        annotation = strict(hint) if given is None else given
        assert parameter is not None
        default = ... if parameter.default is parameter.empty else parameter.default
        if parameter.kind is parameter.VAR_POSITIONAL:
            default = ...
    alias = name if _attribute_name(name) != name else None
    return annotation, Field(default, alias=alias)


registry = Registry()


def register(
    kind: str,
    construct: Callable[..., Any],
    **options: Any,
) -> Entry:
    """Register a spec `type` built by `construct` (see Registry.register)."""
    return registry.register(kind, construct, **options)


def _attribute_name(name: str) -> str:
    # A field named like a BaseModel attribute (`schema`) has another name in Python.
    return f"{name}_" if hasattr(BaseModel, name) else name


def attribute(spec: Spec, name: str) -> Any:
    """A spec field's value by its wire name."""
    return getattr(spec, _attribute_name(name))


def build(spec: Any, site: Site) -> Any:
    """The judge or strategy a validated spec describes."""
    entry = registry[spec.type]
    values: dict[str, Any] = {}
    for name in entry.parameters:
        values[name] = build_value(attribute(spec, name), site.at(name))
    if entry.takes_model:
        values["model"] = site.model
    if entry.adapt is not None:
        values = entry.adapt(spec, values, site)
    return construct(entry, values, spec.model_fields_set, site)


def build_value(value: Any, site: Site) -> Any:
    """Spec models inside a field built, lists of them item by item; other values kept."""
    if isinstance(value, Spec) and hasattr(value, "type"):
        return build(value, site)
    if isinstance(value, Spec):
        builder = getattr(value, "build", None)
        return builder(site) if builder is not None else value
    if isinstance(value, tuple) and value and all(isinstance(v, Spec) for v in value):
        return [build_value(v, site.at(i)) for i, v in enumerate(value)]
    return value


def construct(entry: Entry, values: dict[str, Any], given: set[str], site: Site) -> Any:
    """The constructor called with `values`; a ValueError it raises (its own check) becomes
    a SpecError at the field it concerns, found by calling it again without that field."""
    args, keywords = _call(entry, values)
    try:
        return entry.construct(*args, **keywords)
    except SpecError:
        raise
    except ValueError as exc:
        where = entry.errors_at if entry.errors_at is not None else _blame(entry, values, given)
        raise (site.at(where) if where else site).error(str(exc)) from exc


def _call(entry: Entry, values: Mapping[str, Any]) -> tuple[list[Any], dict[str, Any]]:
    args: list[Any] = []
    keywords: dict[str, Any] = {}
    for name, value in values.items():
        parameter = entry.parameters.get(name)
        if parameter is not None and parameter.kind is parameter.VAR_POSITIONAL:
            args.extend(value)
        else:
            keywords[name] = value
    return args, keywords


def _builds(entry: Entry, values: Mapping[str, Any]) -> bool:
    args, keywords = _call(entry, values)
    try:
        entry.construct(*args, **keywords)
    except ValueError:
        return False
    return True


def _blame(entry: Entry, values: Mapping[str, Any], given: set[str]) -> str:
    """The field a constructor refuses: the first given field whose own default makes it
    build; else, in a list of a required field, the first item whose inclusion makes it
    fail; else the one required field given; else the object itself ("")."""
    given_here = [n for n in entry.parameters if _attribute_name(n) in given and n in values]
    for name in given_here:
        parameter = entry.parameters[name]
        if parameter.default is not parameter.empty and _builds(
            entry, {**values, name: parameter.default}
        ):
            return name
    required = [n for n in given_here if entry.parameters[n].default is entry.parameters[n].empty]
    for name in required:
        items = values[name]
        if isinstance(items, list | tuple):
            for count in range(1, len(items) + 1):
                if not _builds(entry, {**values, name: type(items)(items[:count])}):
                    return f"{name}[{count - 1}]"
    return required[0] if len(required) == 1 else ""


def judge_of(spec: Any, model: Model | str | None) -> Judge:
    built: Judge = build(spec, Site("", model))
    return built
