"""JSON judges: is the output JSON at all, and does it follow a JSON Schema."""

import functools
import json
import os
import re
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import jsonschema_rs

from jurist.core import BaseJudge, Check, Context, Judgment, Name, NotJsonSafeError
from jurist.core import to_json_safe as _to_json_safe
from jurist.judges._common import decided, describe_parse_error, parse_json, shorten

SchemaSource = Mapping[str, Any] | bool | str | os.PathLike[str]

_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")
_SHOWN_VIOLATIONS = 3


def json_path(parts: Sequence[str | int], instance: Any) -> str:
    """A JSONPath for an instance location: ["items", 2, "price"] -> "$.items[2].price".

    jsonschema_rs reports an object key that looks like a number ("2") as an int, so the
    instance itself is walked to tell keys from indices. Keys that are not plain
    identifiers are bracketed and quoted, so a key "2" ($["2"]) never reads like an array
    index ($[2]).
    """
    path = "$"
    node = instance
    for part in parts:
        if isinstance(part, int) and not isinstance(node, dict):
            path += f"[{part}]"
            node = node[part] if isinstance(node, list) and 0 <= part < len(node) else None
            continue
        key = str(part)
        if _IDENTIFIER.match(key):
            path += f".{key}"
        else:
            path += f"[{json.dumps(key, ensure_ascii=False)}]"
        node = node.get(key) if isinstance(node, dict) else None
    return path


def _first_line(exc: BaseException) -> str:
    # jsonschema_rs appends a multi-line excerpt of the schema; the first line says it all.
    text = str(exc).strip()
    return text.splitlines()[0] if text else type(exc).__name__


def _load_schema(schema: SchemaSource) -> Any:
    if isinstance(schema, bool):
        return schema
    if isinstance(schema, Mapping):
        try:
            return _to_json_safe(schema, "schema")
        except NotJsonSafeError as exc:
            raise ValueError(f"schema is not JSON data: {exc}") from exc
    if isinstance(schema, str):
        try:
            return parse_json(schema)
        except ValueError as exc:
            message, _ = describe_parse_error(exc)
            hint = (
                "; to load a schema file pass a pathlib.Path"
                if schema.strip().endswith(".json")
                else ""
            )
            raise ValueError(
                f"schema: a str schema must be JSON text, and it is {message}{hint}"
            ) from exc
    if isinstance(schema, os.PathLike):
        path = Path(schema)
        try:
            text = path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            raise ValueError(f"schema file {path}: cannot read it: {exc}") from exc
        try:
            return parse_json(text)
        except ValueError as exc:
            message, _ = describe_parse_error(exc)
            raise ValueError(f"schema file {path}: {message}") from exc
    raise TypeError(
        f"schema must be a dict, a bool, JSON text or a pathlib.Path, not {type(schema).__name__}"
    )


# Distinct schemas whose compiled validators are kept (the least recently used goes first).
COMPILED_SCHEMAS_KEPT = 256


def compiled_schema(schema: dict[str, Any] | bool) -> Any:
    """The jsonschema_rs validator of a JSON schema (JSON data: `to_json_safe`'s output),
    compiled once per content. The key is the schema's JSON text, keys in their order, so a
    schema changed after use is compiled afresh, and 1, 1.0 and true stay apart. Raises
    what jsonschema_rs raises for a schema that is not a valid JSON Schema."""
    return _compiled(json.dumps(schema))


@functools.lru_cache(maxsize=COMPILED_SCHEMAS_KEPT)
def _compiled(text: str) -> Any:
    # offline=True: judging must never reach the network, even for a remote $ref. Compiled
    # from the text, so the validator depends on nothing the caller may change later.
    return jsonschema_rs.validator_for(json.loads(text), offline=True)


def load_schema_object(schema: SchemaSource) -> tuple[dict[str, Any] | bool, Any]:
    """A schema as SchemaJudge takes one (a dict, a bool, JSON text or a file), and its
    compiled validator. Raises ValueError naming `schema` when it is not a JSON Schema."""
    loaded = _load_schema(schema)
    if not isinstance(loaded, dict | bool):
        raise ValueError(
            f"schema must be a JSON object or boolean, not a JSON {type(loaded).__name__}"
        )
    try:
        return loaded, compiled_schema(loaded)
    except (ValueError, jsonschema_rs.ReferencingError) as exc:
        raise ValueError(f"schema is not a valid JSON Schema: {_first_line(exc)}") from exc


class SchemaJudge(BaseJudge):
    """PASS when the output is JSON that follows a JSON Schema.

    The draft comes from the schema's "$schema" and is 2020-12 when that is absent. Remote
    `$ref`s are never fetched: a schema that needs one is rejected at construction. Text
    output is parsed as JSON first; other output (dict, list, number...) is validated as it
    is. Each violation is a failed check named by the JSON path of the offending value.

    `parse_text=False` validates text output as the JSON string it is, for callers (the
    validation service) whose output is already a parsed JSON value.
    """

    def __init__(
        self,
        schema: SchemaSource,
        *,
        parse_text: bool = True,
        name: Name | None = None,
        description: str = "",
    ) -> None:
        super().__init__(name, description)
        self.parse_text = parse_text
        self.schema: dict[str, Any] | bool
        self.schema, self._validator = load_schema_object(schema)

    async def judge(self, ctx: Context) -> Judgment:
        instance, problem = _instance(ctx, parse_text=self.parse_text)
        if problem is not None:
            return problem
        violations = [
            Check.fail(json_path(error.instance_path, instance), error.message)
            for error in self._validator.iter_errors(instance)
        ]
        if not violations:
            return _FOLLOWS
        shown = "; ".join(
            f"{check.name}: {shorten(check.message)}" for check in violations[:_SHOWN_VIOLATIONS]
        )
        more = len(violations) - _SHOWN_VIOLATIONS
        noun = "violation" if len(violations) == 1 else "violations"
        return decided(
            False,
            f"{len(violations)} schema {noun}: {shown}"
            + (f"; and {more} more" if more > 0 else ""),
            violations,
            {"violations": len(violations)},
        )


# Every output that follows its schema gets this judgment: judgments are frozen, so one
# serves them all, and a passing check makes no new one.
_FOLLOWS = decided(
    True, "the output follows the schema", [Check.ok("schema", "no violations")], {"violations": 0}
)


class JsonJudge(BaseJudge):
    """PASS when the output is valid JSON text, or already a JSON value (dict, list...)."""

    def __init__(self, *, name: Name | None = None, description: str = "") -> None:
        super().__init__(name, description)

    async def judge(self, ctx: Context) -> Judgment:
        _, problem = _instance(ctx)
        if problem is not None:
            return problem
        return decided(True, "the output is valid JSON", [Check.ok("json", "valid JSON")])


def _instance(ctx: Context, *, parse_text: bool = True) -> tuple[Any, Judgment | None]:
    """The output as a JSON value, or the FAIL judgment saying why it is none."""
    output = ctx.output
    if output is None:
        return None, _not_json("no output", {})
    if isinstance(output, str) and parse_text:
        try:
            return parse_json(output), None
        except ValueError as exc:
            message, metadata = describe_parse_error(exc)
            return None, _not_json(message, metadata)
    try:
        # Tuples become lists and NaN is refused, so the validator sees exactly what JSON
        # text of this output would hold.
        return _to_json_safe(output, "output"), None
    except NotJsonSafeError as exc:
        return None, _not_json(f"the output is not a JSON value: {exc}", {})


def _not_json(message: str, metadata: dict[str, Any]) -> Judgment:
    return decided(False, message, [Check.fail("json", message)], metadata)
