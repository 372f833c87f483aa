"""A judge as a library's caller gives one (the pytest plugin's `assert_judgment`, the
framework bridges' `evaluate`): the judge itself, a spec dict, or a spec's short form."""

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from jurist.core import Judge
from jurist.llm import Model
from jurist.specs._load import judge_from_spec, load_judge_spec
from jurist.specs._registry import registry
from jurist.specs._shorthand import judge_shorthand

#: What `as_judge` takes.
JudgeOrSpec = Judge | str | Mapping[str, Any]


def as_judge(judge_or_spec: JudgeOrSpec, *, model: Model | str | None = None) -> Judge:
    """`judge_or_spec` as a Judge: a Judge (a jury, a cascade) as it is; a spec dict; or a
    string: `criterion:TEXT`, `rubric:ID`, a spec file's path, or a spec type that needs no
    parameters (`json`). Model-backed judges built here ask `model` (None: JURIST_MODEL).

    A spec that cannot be built raises SpecError naming the problem; a string of none of
    these forms, ValueError; anything else, TypeError."""
    if callable(getattr(judge_or_spec, "judge", None)):
        return judge_or_spec  # type: ignore[return-value]
    if isinstance(judge_or_spec, Mapping):
        return judge_from_spec(dict(judge_or_spec), model=model)
    if isinstance(judge_or_spec, str):
        named = judge_shorthand(judge_or_spec)
        if named is not None:
            _, spec = named
            data = load_judge_spec(spec) if isinstance(spec, Path) else spec
            return judge_from_spec(data, model=model)
        if judge_or_spec in registry:
            return judge_from_spec({"type": judge_or_spec}, model=model)
        raise ValueError(
            f"judge {judge_or_spec!r} is none of the forms: a Judge, a spec dict, "
            "'criterion:TEXT', 'rubric:ID', a spec file's path (.yaml, .yml, .json) or a "
            "spec type such as 'json'"
        )
    raise TypeError(
        f"judge must be a Judge, a spec dict or a spec string, not {type(judge_or_spec).__name__}"
    )
