"""The data types of spec fields: a constructor's parameter types made strict (a spec's
numbers are numbers, never text that looks like one), and the narrower types that spec
fields take where a constructor accepts Python objects (paths, patterns, iterables)."""

import collections.abc
import re
import types
from collections.abc import Mapping
from typing import Annotated, Any, Literal, Union, get_args, get_origin

from pydantic import (
    AfterValidator,
    BeforeValidator,
    Discriminator,
    Field,
    Strict,
    StrictBool,
    StrictFloat,
    StrictInt,
    Tag,
)

from jurist import core
from jurist.rubrics import Rubric

# Bounds on what one spec may ask for: every judge may call a model, and a spec from a
# client must not be able to make thousands of calls.
MAX_CRITERIA = 100  # criteria of one `criteria` judge: one model call each
MAX_ITEMS_EXTRACTED = 64  # claims, key facts or sentences one judge extracts and checks

_STRICT_SCALARS = (int, float, bool)
_CONTAINERS = (
    list,
    tuple,
    dict,
    collections.abc.Sequence,
    collections.abc.Mapping,
)


def strict(annotation: Any) -> Any:
    """`annotation` with its ints, floats and bools strict, at any depth of Annotated,
    unions and containers (a category map's values too)."""
    if annotation in _STRICT_SCALARS:
        return Annotated[annotation, Strict()]
    origin = get_origin(annotation)
    if origin is Annotated:
        base, *metadata = get_args(annotation)
        return Annotated[(strict(base), *metadata)]
    if origin in (Union, types.UnionType):
        return Union[tuple(strict(arg) for arg in get_args(annotation))]  # noqa: UP007
    if origin in _CONTAINERS:
        return origin[tuple(arg if arg is ... else strict(arg) for arg in get_args(annotation))]
    return annotation


Extracted = Annotated[core.Count, Field(le=MAX_ITEMS_EXTRACTED), Strict()]
MaxTokens = Annotated[StrictInt, Field(ge=1, le=4096)]
Temperature = Annotated[StrictFloat, Field(ge=0.0, le=2.0)]
TemplateName = Annotated[
    str,
    Field(
        min_length=1,
        description="a prompt template of the package (never a file); the judge's own if unset",
    ),
]
RegexFlag = Literal["ignorecase", "multiline", "dotall", "verbose", "ascii"]
REGEX_FLAGS: dict[str, re.RegexFlag] = {
    "ignorecase": re.IGNORECASE,
    "multiline": re.MULTILINE,
    "dotall": re.DOTALL,
    "verbose": re.VERBOSE,
    "ascii": re.ASCII,
}


def _one_or_more(value: object) -> object:
    return [value] if isinstance(value, str) else value


Keywords = Annotated[
    tuple[core.Text, ...],
    BeforeValidator(_one_or_more, json_schema_input_type=str | list[str]),
    Field(min_length=1),
]


def _rubric_kind(value: object) -> str | None:
    if isinstance(value, str):
        return "id"
    if isinstance(value, Mapping | Rubric):
        return "inline"
    return None


RubricRef = Annotated[
    Annotated[str, Tag("id")] | Annotated[Rubric, Tag("inline")],
    Discriminator(
        _rubric_kind,
        custom_error_type="rubric_ref",
        custom_error_message="must be a rubric id (a string) or an inline rubric (an object)",
    ),
    Field(description="a rubric id of the library, or an inline rubric object"),
]

SentenceDimension = Literal["fluency", "coherence"]


def _chosen_dimensions(chosen: tuple[str, ...]) -> tuple[str, ...]:
    # Checked here rather than by Field constraints, so the messages can say what to write.
    if not chosen:
        raise ValueError(f"name at least one dimension: {', '.join(get_args(SentenceDimension))}")
    for index, name in enumerate(chosen):
        if name in chosen[:index]:
            first = chosen.index(name)
            raise ValueError(f"dimensions[{index}] repeats dimensions[{first}] ({name!r})")
    return chosen


Dimensions = Annotated[
    tuple[SentenceDimension, ...],
    AfterValidator(_chosen_dimensions),
    Field(json_schema_extra={"minItems": 1, "uniqueItems": True}),
]
Weights = dict[str, Annotated[StrictFloat, Field(ge=0.0)]]
SchemaValue = dict[str, Any] | StrictBool

# Spec fields named like a constructor parameter of many judges: the data form of that
# parameter, and None when the spec's default differs from the constructor's ("the judge's
# own choice").
COMMON: dict[str, Any] = {
    "name": core.Name | None,
    "template": (TemplateName | None, None),
    "max_tokens": MaxTokens,
    "temperature": Temperature | None,
    "max_claims": Extracted,
    "facts": Extracted,
    "max_sentences": Extracted,
}
