"""Facts a program computes: arithmetic an output states, and counts it states over a text.

"5 x 5 x 5 = 625" and "the word 'data' appears twice" (when it appears once) are wrong in a
way no judge should have to guess at. Statements of these shapes are found, computed with a
safe evaluator (numbers and + - * / only, never Python's eval) and reported when wrong.
"""

import ast
import operator
import re
from collections.abc import Callable
from dataclasses import dataclass
from decimal import Decimal, DivisionByZero, InvalidOperation
from typing import Literal

from jurist.judges._quantities import NUMBER_WORDS

_NUMBER = r"-?\d+(?:\.\d+)?"
_OPERATOR = r"[-+*/x\u00d7\u00f7]"
_STATEMENT = re.compile(
    r"(?<![\w.])(?P<expression>" + _NUMBER + r"(?:\s*" + _OPERATOR + r"\s*" + _NUMBER + r")+)"
    r"\s*(?:=|equals|is)\s*(?P<result>" + _NUMBER + r")(?![\w.]\d)",
    re.IGNORECASE,
)
_OPERATIONS: dict[type[ast.operator], Callable[[Decimal, Decimal], Decimal]] = {
    ast.Add: operator.add,
    ast.Sub: operator.sub,
    ast.Mult: operator.mul,
    ast.Div: operator.truediv,
}
_TIMES = {"once": 1, "twice": 2, "thrice": 3}
_COUNT = re.compile(
    r"(?:the\s+)?(?P<what>word|letter|character|phrase)\s+[\"'\u201c\u2018]?(?P<item>[^\"'\u201d\u2019]+?)"
    r"[\"'\u201d\u2019]?\s+(?:appears|occurs|is used|shows up)\s+"
    r"(?P<count>once|twice|thrice|\d+|" + "|".join(NUMBER_WORDS) + r")(?:\s+times?)?",
    re.IGNORECASE,
)


@dataclass(frozen=True)
class Miscalculation:
    """A statement the program checked and found wrong: `stated` where `computed` is right;
    `kind` says whether it was arithmetic or a count."""

    statement: str
    stated: str
    computed: str
    kind: Literal["arithmetic", "count"]

    @property
    def reason(self) -> str:
        return f"{self.statement!r} is wrong: it comes to {self.computed}, not {self.stated}"


def _evaluate(node: ast.AST) -> Decimal:
    if isinstance(node, ast.Expression):
        return _evaluate(node.body)
    if isinstance(node, ast.Constant) and isinstance(node.value, int | float):
        return Decimal(str(node.value))
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        return -_evaluate(node.operand)
    if isinstance(node, ast.BinOp) and type(node.op) in _OPERATIONS:
        return _OPERATIONS[type(node.op)](_evaluate(node.left), _evaluate(node.right))
    raise ValueError("not arithmetic")


def evaluate(expression: str) -> Decimal:
    """The value of an arithmetic expression of numbers and + - * / (x and \u00d7 multiply,
    \u00f7 divides). ValueError for anything else."""
    spelled = re.sub(r"(?<=[\d\s])[x\u00d7](?=[\s\d])", "*", expression).replace("\u00f7", "/")
    try:
        return _evaluate(ast.parse(spelled.strip(), mode="eval"))
    except (SyntaxError, InvalidOperation, DivisionByZero, ZeroDivisionError) as exc:
        raise ValueError(f"cannot evaluate {expression!r}") from exc


def _shown(value: Decimal) -> str:
    return format(value.normalize(), "f") if value == value.to_integral() else format(value, "f")


def arithmetic_errors(text: str) -> list[Miscalculation]:
    """Every "a op b ... = c" in `text` whose sides differ (beyond the rounding of the
    stated result's decimals)."""
    wrong: list[Miscalculation] = []
    for match in _STATEMENT.finditer(text):
        try:
            computed = evaluate(match["expression"])
        except ValueError:
            continue
        stated = Decimal(match["result"])
        places = len(match["result"].split(".")[1]) if "." in match["result"] else 0
        if abs(computed - stated) > Decimal(5) * Decimal(10) ** -(places + 1):
            wrong.append(
                Miscalculation(match[0].strip(), match["result"], _shown(computed), "arithmetic")
            )
    return wrong


def _occurrences(what: str, item: str, text: str) -> int:
    if what.casefold() in {"letter", "character"}:
        return text.casefold().count(item.casefold())
    return len(re.findall(r"(?<!\w)" + re.escape(item) + r"(?!\w)", text, re.IGNORECASE))


def count_errors(statement_text: str, counted_text: str) -> list[Miscalculation]:
    """Every "the word X appears N times" in `statement_text` that is wrong about
    `counted_text` (words on word boundaries, letters anywhere, case ignored)."""
    wrong: list[Miscalculation] = []
    for match in _COUNT.finditer(statement_text):
        said = match["count"].casefold()
        stated = _TIMES.get(said) or NUMBER_WORDS.get(said) or int(said)
        found = _occurrences(match["what"], match["item"].strip(), counted_text)
        if found != stated:
            wrong.append(Miscalculation(match[0].strip(), match["count"], str(found), "count"))
    return wrong


def miscalculations(output: str, over: str) -> list[Miscalculation]:
    """What a program finds wrong in an output: its arithmetic, and the counts it states
    over `over` (the instruction or the sources it was given) or over itself ("this answer
    has N words" and the like)."""
    return arithmetic_errors(output) + count_errors(output, over)
