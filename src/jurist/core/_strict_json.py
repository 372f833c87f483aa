"""The one JSON reader for everything jurist takes in: request bodies, files and dataset rows.

Python's `json` accepts more than JSON (NaN, Infinity), turns 1e400 into inf, refuses
integers over 4,300 digits only by raising deep inside, and recurses once per level of
nesting, so a 10,000-deep array overflows the stack. This reader refuses all of those with
`StrictJsonError`, which says where (`output[2].text`, a line and column) and what:

- text that is not UTF-8 (bytes) or not JSON;
- nesting deeper than `max_depth` (measured by a scan that does not recurse, before parsing);
- NaN, Infinity and -Infinity, and numbers too large for a float (1e400);
- integers longer than `MAX_INT_DIGITS` digits;
- strings holding a lone surrogate (an escape such as "\\ud800" without its pair). They are
  valid JSON but not text: they cannot be encoded as UTF-8 nor stored in a PostgreSQL text
  column, so they are refused rather than silently replaced, which would judge and store
  something other than what was sent.
"""

import json
import re
from collections.abc import Callable
from typing import Any

from jurist.core._errors import JuristError

DEFAULT_MAX_DEPTH = 64
# Far beyond any identifier or count a client has reason to send (2**64 has 20 digits), and
# cheap to parse; Python's own limit (4,300) only guards conversion time.
MAX_INT_DIGITS = 256

# A string (escapes included), a quote that opens an unterminated string, or a bracket.
_DEPTH_TOKEN = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"|"|[\[\]{}]', re.DOTALL)
# The same, with the separators, to follow keys and indexes to where the limit is crossed.
_PATH_TOKEN = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"|"|[\[\]{},:]', re.DOTALL)
# What may decode to a lone surrogate: an escape in the D800-DFFF range, or one already in
# a str (read with errors="surrogateescape", for instance).
_MAYBE_SURROGATE = re.compile(r"\\u[dD][89a-fA-F]|[\ud800-\udfff]")
_SURROGATE = re.compile(r"[\ud800-\udfff]")
_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_KEY_SHOWN = 40
_PATH_PARTS_SHOWN = 4


class StrictJsonError(JuristError, ValueError):
    """JSON jurist will not read: where (`path` inside the document, "" for the whole of it;
    `line` and `column` when known), the problem, and its `kind` (encoding, syntax, depth,
    number or surrogate), for callers that name their own setting or status."""

    def __init__(
        self,
        path: str,
        problem: str,
        *,
        kind: str = "syntax",
        line: int | None = None,
        column: int | None = None,
    ) -> None:
        self.path = path
        self.problem = problem
        self.kind = kind
        self.line = line
        self.column = column
        super().__init__(self._describe())

    @property
    def field(self) -> str:
        """Where, for an API's field errors: the path, or "body" for the whole document."""
        return self.path or "body"

    def on_line(self, line: int) -> "StrictJsonError":
        """The same problem, placed on a line of a JSON Lines file."""
        return StrictJsonError(
            self.path, self.problem, kind=self.kind, line=line, column=self.column
        )

    def within(self, prefix: str) -> "StrictJsonError":
        """The same problem, with its path under `prefix` (e.g. `rows[3]`)."""
        path = join_path(prefix, self.path)
        return StrictJsonError(
            path, self.problem, kind=self.kind, line=self.line, column=self.column
        )

    def _describe(self) -> str:
        where = []
        if self.line is not None:
            where.append(f"line {self.line}")
            if self.column is not None:
                where[-1] += f" column {self.column}"
        if self.path:
            where.append(self.path)
        return ": ".join([*where, self.problem])


def join_path(prefix: str, path: str) -> str:
    if not prefix or not path:
        return prefix or path
    return prefix + path if path.startswith("[") else f"{prefix}.{path}"


def loads_strict(data: str | bytes | bytearray, *, max_depth: int = DEFAULT_MAX_DEPTH) -> Any:
    """The JSON value in `data` (bytes must be UTF-8; a leading byte-order mark is allowed),
    or StrictJsonError naming where and what is wrong."""
    if max_depth < 1:
        raise ValueError(f"max_depth must be at least 1, not {max_depth}")
    text = _text(data)
    _check_depth(text, max_depth)
    flagged: list[str] = []
    try:
        value = json.loads(
            text,
            parse_constant=_refuse_constant(flagged),
            parse_int=_bounded_int(flagged),
            parse_float=_finite_float(flagged),
        )
    except json.JSONDecodeError as exc:
        raise StrictJsonError(
            "", f"not valid JSON: {exc.msg}", line=exc.lineno, column=exc.colno
        ) from None
    except RecursionError:  # the depth check makes this unreachable; never a traceback
        raise StrictJsonError("", f"nested deeper than {max_depth} levels", kind="depth") from None
    if flagged or _MAYBE_SURROGATE.search(text):
        _find_refused(value)
    return value


def _text(data: str | bytes | bytearray) -> str:
    if isinstance(data, str):
        return data.removeprefix("\ufeff")
    try:
        return bytes(data).removeprefix(b"\xef\xbb\xbf").decode("utf-8")
    except UnicodeDecodeError as exc:
        bad = bytes(data)[exc.start : exc.start + 1].hex()
        raise StrictJsonError(
            "", f"not valid UTF-8: byte 0x{bad} at offset {exc.start}", kind="encoding"
        ) from None


def _check_depth(text: str, max_depth: int) -> None:
    # Most documents hold fewer brackets than the limit: no scan needed.
    if text.count("[") + text.count("{") <= max_depth:
        return
    depth = 0
    for match in _DEPTH_TOKEN.finditer(text):
        token = match.group()
        if token in ("[", "{"):
            depth += 1
            if depth > max_depth:
                path = _path_at(text, match.start())
                raise StrictJsonError(path, f"nested deeper than {max_depth} levels", kind="depth")
        elif token in ("]", "}"):
            depth -= 1
        elif token == '"':
            return  # an unterminated string: the parser reports it, with its position


def _path_at(text: str, end: int) -> str:
    """The path of the container that opens at `end`, by following keys and indexes."""
    # Each open container: [is_object, key or index, expecting a key next].
    stack: list[list[Any]] = []
    for match in _PATH_TOKEN.finditer(text, 0, end):
        token = match.group()
        if token == "{":
            stack.append([True, None, True])
        elif token == "[":
            stack.append([False, 0, False])
        elif token in ("]", "}"):
            if stack:
                stack.pop()
        elif token == ",":
            if stack and stack[-1][0]:
                stack[-1][2] = True
            elif stack:
                stack[-1][1] += 1
        elif token == ":":
            if stack and stack[-1][0]:
                stack[-1][2] = False
        elif token.startswith('"') and len(token) > 1 and stack and stack[-1][0] and stack[-1][2]:
            try:
                stack[-1][1] = json.loads(token)
            except json.JSONDecodeError:
                stack[-1][1] = token[1:-1]
    parts = [_part(label, index == 0) for index, (_, label, _) in enumerate(stack)]
    # Dozens of "[0]" say no more than a few: the field, where it starts, and that it goes on.
    if len(parts) > _PATH_PARTS_SHOWN:
        parts = [*parts[:_PATH_PARTS_SHOWN], "…"]
    return "".join(parts)


def _part(label: Any, first: bool) -> str:
    if isinstance(label, int):
        return f"[{label}]"
    key = str(label)
    if _IDENTIFIER.fullmatch(key) and len(key) <= _KEY_SHOWN:
        return key if first else f".{key}"
    if len(key) > _KEY_SHOWN:
        key = key[:_KEY_SHOWN] + "…"
    return f"[{json.dumps(key, ensure_ascii=True)}]"


class _Refused:
    """Stands where the parser met a value this reader refuses, until its path is known."""

    __slots__ = ("kind", "problem")

    def __init__(self, problem: str, kind: str = "number") -> None:
        self.problem = problem
        self.kind = kind


def _refuse_constant(flagged: list[str]) -> Callable[[str], Any]:
    def parse(name: str) -> Any:
        flagged.append(name)
        return _Refused(f"{name} is not a JSON number (JSON has no NaN or infinities)")

    return parse


def _bounded_int(flagged: list[str]) -> Callable[[str], Any]:
    def parse(digits: str) -> Any:
        if len(digits.lstrip("-")) > MAX_INT_DIGITS:
            flagged.append(digits)
            return _Refused(
                f"an integer of {len(digits.lstrip('-'))} digits; at most "
                f"{MAX_INT_DIGITS} are accepted"
            )
        return int(digits)

    return parse


def _finite_float(flagged: list[str]) -> Callable[[str], Any]:
    def parse(literal: str) -> Any:
        value = float(literal)
        if value in (float("inf"), float("-inf")):
            flagged.append(literal)
            shown = literal if len(literal) <= 20 else literal[:20] + "…"
            return _Refused(f"the number {shown} is too large for a float")
        return value

    return parse


def _find_refused(value: Any) -> None:
    """Raise for the first refused value or lone surrogate, in document order, with its
    path. Iterative: the depth is already bounded, but nothing here needs the stack."""
    pending: list[tuple[str, Any]] = [("", value)]
    while pending:
        path, item = pending.pop()
        if isinstance(item, _Refused):
            raise StrictJsonError(path, item.problem, kind=item.kind)
        if isinstance(item, str):
            _check_text(path, item)
        elif isinstance(item, dict):
            children = []
            for key, child in item.items():
                child_path = path + _part(key, not path)
                _check_text(child_path, key, what="key")
                children.append((child_path, child))
            pending.extend(reversed(children))
        elif isinstance(item, list):
            pending.extend(reversed([(f"{path}[{i}]", child) for i, child in enumerate(item)]))


def _check_text(path: str, text: str, what: str = "string") -> None:
    found = _SURROGATE.search(text)
    if found:
        code = f"\\u{ord(found.group()):04x}"
        raise StrictJsonError(
            path,
            f"the {what} holds a lone surrogate ({code} at character {found.start()}), "
            "which is not text; send the character itself, or both halves of the pair",
            kind="surrogate",
        )
