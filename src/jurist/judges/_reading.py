"""Classifiers: how a model's answer becomes a decision.

A classifier says what answer it wants (a JSON schema, whether token probabilities help)
and reads the response into a `Reading`. An answer no classifier can read raises
`Unreadable`, which a model judge turns into ERROR with cause "unparseable", never FAIL.
"""

import math
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from pydantic import JsonValue

from jurist.core import BooleanScore, JuristError, NumericScore, Score, Status
from jurist.llm import Response, extract_json, field_probabilities, label_probabilities


class Unreadable(JuristError, ValueError):
    """The model's answer holds no decision this classifier can read."""


@dataclass(frozen=True)
class Reading:
    """A decision read from an answer. `method` says how: "logprobs" (token
    probabilities), "stated" (the model's own words or numbers), or "label"."""

    status: Status
    score: Score | None = None
    confidence: float | None = None
    reasoning: str = ""
    method: str = "stated"
    details: Mapping[str, Any] = field(default_factory=dict)


class Classifier(Protocol):
    """Reads a model response into a decision."""

    @property
    def json_schema(self) -> dict[str, JsonValue] | None:
        """The schema the answer must meet, or None for free text."""
        ...

    @property
    def wants_logprobs(self) -> bool:
        """Whether token probabilities improve the reading (asked only when available)."""
        ...

    def read(self, response: Response) -> Reading: ...


def words(text: str) -> list[str]:
    """Upper-case word tokens: "Grade: CI." -> ["GRADE", "CI"]."""
    return re.findall(r"[A-Z0-9_]+", text.upper())


def _find(tokens: Sequence[str], label: Sequence[str]) -> list[int]:
    n = len(label)
    return [i for i in range(len(tokens) - n + 1) if list(tokens[i : i + n]) == list(label)]


def object_schema(properties: dict[str, JsonValue]) -> dict[str, JsonValue]:
    """A JSON schema for an object with these properties, all required, in this order (the
    order a grammar-constrained model writes them in)."""
    return {"type": "object", "properties": properties, "required": list(properties)}


@dataclass(frozen=True)
class NumberedAnswer:
    """One answer of a several-answers-in-one-call response: the item it answers (1-based),
    its object, and the label probabilities at its decision token when they could be read."""

    number: int
    item: Mapping[str, Any]
    probabilities: Mapping[str, float] | None
    where: str


@dataclass(frozen=True)
class NumberedReading:
    """What a several-answers-in-one-call response says, read leniently: `answers`, the item
    numbers answered exactly once by an object naming a number 1..count, and `problems`,
    what was wrong with the rest (a wrong count, a number missing, out of range or given
    twice). An item number given twice keeps neither answer: which one was meant is
    unknown."""

    answers: Mapping[int, NumberedAnswer]
    problems: tuple[str, ...]

    def missing(self, count: int) -> list[int]:
        """The item numbers 1..count that have no answer."""
        return [value for value in range(1, count + 1) if value not in self.answers]


def read_numbered(
    response: Response,
    *,
    key: str,
    number: str,
    count: int,
    items_named: str,
    field: str,
    labels: Sequence[str],
) -> NumberedReading:
    """The answers under `key` that can be told apart by their item number, and what was
    wrong with the others. Unreadable only when there is no `key` array at all.

    The probabilities of the k-th answer written are read at the k-th `field` token; when
    the tokens do not show one `field` per answer written, none are used.
    """
    answers = json_object(response).get(key)
    if not isinstance(answers, list):
        raise Unreadable(f"the answer has no {key!r} array")
    problems: list[str] = []
    if len(answers) != count:
        problems.append(f"the answer holds {len(answers)} {key} for {count} {items_named}")
    found = field_probabilities(response.logprobs, field, labels)
    aligned = len(found) == len(answers)
    by_number: dict[int, NumberedAnswer] = {}
    repeated: set[int] = set()
    for position, item in enumerate(answers):
        where = f"{key.removesuffix('s')} {position + 1}: "
        if not isinstance(item, Mapping):
            problems.append(f"{where}a {type(item).__name__}, not an object")
            continue
        value = item.get(number)
        if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= count:
            problems.append(f'{where}"{number}" is {value!r}, not a number 1..{count}')
            continue
        if value in by_number or value in repeated:
            problems.append(f"{where}{number} {value} has a second {key.removesuffix('s')}")
            by_number.pop(value, None)
            repeated.add(value)
            continue
        probabilities = found[position] if aligned else None
        by_number[value] = NumberedAnswer(value, item, probabilities, where)
    return NumberedReading(dict(sorted(by_number.items())), tuple(problems))


def numbered_answers(
    response: Response,
    *,
    key: str,
    number: str,
    count: int,
    items_named: str,
    field: str,
    labels: Sequence[str],
) -> list[NumberedAnswer]:
    """The answers under `key`, in the order of the items they answer.

    Exactly one answer per item number 1..count; a missing, repeated or unknown number is
    unreadable (the first problem `read_numbered` finds). The probabilities of the k-th
    answer written are read at the k-th `field` token; when the tokens do not show one
    `field` per answer, none are used.
    """
    reading = read_numbered(
        response,
        key=key,
        number=number,
        count=count,
        items_named=items_named,
        field=field,
        labels=labels,
    )
    if reading.problems:
        raise Unreadable(reading.problems[0])
    return [reading.answers[value] for value in range(1, count + 1)]


def closed_object_schema(properties: dict[str, JsonValue]) -> dict[str, JsonValue]:
    """`object_schema` that admits no other property."""
    return {**object_schema(properties), "additionalProperties": False}


def numbered_answers_schema(
    key: str, number: str, properties: dict[str, JsonValue], count: int
) -> dict[str, JsonValue]:
    """Several answers in one call: `{key: [...]}` holding exactly `count` objects, each
    naming the item it answers by its 1-based `number` field before `properties`.

    An object around the array, not a bare array: providers' structured output wants an
    object at the top."""
    item: dict[str, JsonValue] = {
        number: {"type": "integer", "minimum": 1, "maximum": count},
        **properties,
    }
    answers: JsonValue = {
        "type": "array",
        "items": closed_object_schema(item),
        "minItems": count,
        "maxItems": count,
    }
    return closed_object_schema({key: answers})


class LabelClassifier:
    """PASS or FAIL from labels in a free-text answer, matched as whole words.

    "GRADE: CI" is not "C"; "incorrect" is not "correct". The answer is read, in order:
    the whole answer is a label; it starts with a label ("Yes, because ..."); the labels it
    holds all belong to one side. Labels of both sides, or none, make it unreadable.
    """

    json_schema: dict[str, JsonValue] | None = None
    wants_logprobs = False

    def __init__(
        self, pass_labels: Iterable[str] = ("PASS",), fail_labels: Iterable[str] = ("FAIL",)
    ) -> None:
        self.pass_labels = tuple(pass_labels)
        self.fail_labels = tuple(fail_labels)
        if not self.pass_labels or not self.fail_labels:
            raise ValueError("LabelClassifier needs at least one pass label and one fail label")
        self._sides = [(words(label), True) for label in self.pass_labels] + [
            (words(label), False) for label in self.fail_labels
        ]
        for tokens, _ in self._sides:
            if not tokens:
                raise ValueError("a label must hold at least one letter or digit")
        overlap = {" ".join(words(p)) for p in self.pass_labels} & {
            " ".join(words(f)) for f in self.fail_labels
        }
        if overlap:
            raise ValueError(f"labels {sorted(overlap)} are both pass and fail labels")

    def read(self, response: Response) -> Reading:
        tokens = words(response.text)
        for label, passed in self._sides:
            if tokens == label:
                return self._reading(passed, response.text, "whole answer")
        # The longest label first, so "NOT CORRECT" wins over "CORRECT" at the start.
        for label, passed in sorted(self._sides, key=lambda side: -len(side[0])):
            if tokens[: len(label)] == label:
                return self._reading(passed, response.text, "first word")
        sides = {passed for label, passed in self._sides if _find(tokens, label)}
        if len(sides) == 1:
            return self._reading(sides.pop(), response.text, "only side named")
        if not sides:
            raise Unreadable(
                f"the answer holds none of the labels {list(self.pass_labels + self.fail_labels)}"
            )
        raise Unreadable("the answer names both a pass label and a fail label")

    @staticmethod
    def _reading(passed: bool, text: str, rule: str) -> Reading:
        return Reading(
            Status.PASS if passed else Status.FAIL,
            BooleanScore(passed),
            reasoning=text.strip(),
            method="label",
            details={"rule": rule},
        )


def json_object(response: Response) -> Mapping[str, Any]:
    """The answer's JSON object: the one the model layer checked, else the one in the text."""
    if isinstance(response.json, Mapping):
        return response.json

    try:
        value = extract_json(response.text)
    except ValueError as exc:
        raise Unreadable(str(exc)) from exc
    if not isinstance(value, Mapping):
        raise Unreadable(f"the answer's JSON is a {type(value).__name__}, not an object")
    return value


def stated_confidence(answer: Mapping[str, Any], key: str | None) -> float | None:
    if key is None or key not in answer:
        return None
    value = answer[key]
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        raise Unreadable(f"{key!r} is {value!r}, not a number in 0..1")
    if not 0.0 <= value <= 1.0:
        raise Unreadable(f"{key!r} is {value}, outside 0..1")
    return float(value)


class JsonFieldClassifier:
    """PASS or FAIL from one field of a JSON answer (`{"verdict": "pass", ...}`).

    Values are compared case-insensitively as whole words. With token probabilities, the
    decision is the more probable side at that field (method "logprobs").
    """

    wants_logprobs = True

    def __init__(
        self,
        field: str = "verdict",
        pass_values: Iterable[str] = ("pass",),
        fail_values: Iterable[str] = ("fail",),
        *,
        reasoning_field: str | None = "reasoning",
        confidence_field: str | None = None,
        threshold: float = 0.5,
    ) -> None:
        self.field = field
        self.pass_values = tuple(pass_values)
        self.fail_values = tuple(fail_values)
        self.reasoning_field = reasoning_field
        self.confidence_field = confidence_field
        self.threshold = threshold
        properties: dict[str, JsonValue] = {}
        if reasoning_field:
            properties[reasoning_field] = {"type": "string"}
        properties[field] = {"type": "string", "enum": [*self.pass_values, *self.fail_values]}
        if confidence_field:
            properties[confidence_field] = {"type": "number", "minimum": 0, "maximum": 1}
        self._schema = object_schema(properties)

    @property
    def json_schema(self) -> dict[str, JsonValue]:
        return self._schema

    def read(self, response: Response) -> Reading:
        answer = json_object(response)
        if self.field not in answer:
            raise Unreadable(f"the answer has no {self.field!r} field")
        value = str(answer[self.field])
        token = words(value)
        if token in [words(v) for v in self.pass_values]:
            stated = True
        elif token in [words(v) for v in self.fail_values]:
            stated = False
        else:
            raise Unreadable(
                f"{self.field!r} is {value!r}, not one of "
                f"{list(self.pass_values + self.fail_values)}"
            )
        reasoning = str(answer.get(self.reasoning_field, "")) if self.reasoning_field else ""
        labels = [*self.pass_values, *self.fail_values]
        found = field_probabilities(response.logprobs, self.field, labels)
        if found and found[0] is not None:
            p_pass = sum(found[0][label] for label in self.pass_values)
            passed = p_pass >= self.threshold
            return Reading(
                Status.PASS if passed else Status.FAIL,
                NumericScore(p_pass),
                confidence=p_pass if passed else 1.0 - p_pass,
                reasoning=reasoning,
                method="logprobs",
                details={"probabilities": found[0], "stated": value},
            )
        return Reading(
            Status.PASS if stated else Status.FAIL,
            BooleanScore(stated),
            confidence=stated_confidence(answer, self.confidence_field),
            reasoning=reasoning,
            method="stated",
        )


_SCORE_LINE = re.compile(r"\b(?:score|rating|grade)\b\s*[:=]?\s*([-+]?\d+(?:\.\d+)?)", re.I)


class ScoreClassifier:
    """A number on a scale, PASS at or above `threshold`.

    From a JSON answer's `field`, or from text ("Score: 4", "4/5", or the answer being a
    number). With token probabilities and a small integer scale, the score is the expected
    value over the scale's integers at the field (G-Eval's probability weighting).
    A number outside [min, max] is unreadable, never clipped.
    """

    wants_logprobs = True

    def __init__(
        self,
        min: float = 1,
        max: float = 5,
        threshold: float = 3,
        *,
        field: str = "score",
        reasoning_field: str | None = "reasoning",
        integer: bool = True,
    ) -> None:
        if not min < max:
            raise ValueError(f"ScoreClassifier: min ({min}) must be below max ({max})")
        if not min <= threshold <= max:
            raise ValueError(f"ScoreClassifier: threshold {threshold} is outside [{min}, {max}]")
        self.min, self.max, self.threshold = float(min), float(max), float(threshold)
        self.field = field
        self.reasoning_field = reasoning_field
        self.integer = integer
        properties: dict[str, JsonValue] = {}
        if reasoning_field:
            properties[reasoning_field] = {"type": "string"}
        properties[field] = (
            {"type": "integer", "minimum": int(min), "maximum": int(max)}
            if integer
            else {"type": "number", "minimum": min, "maximum": max}
        )
        self._schema = object_schema(properties)

    @property
    def json_schema(self) -> dict[str, JsonValue]:
        return self._schema

    @property
    def _points(self) -> list[int] | None:
        if not self.integer or self.max - self.min > 9:
            return None
        return list(range(int(self.min), int(self.max) + 1))

    def read(self, response: Response) -> Reading:
        stated, reasoning = self._stated(response)
        points = self._points
        if points is not None:
            found = field_probabilities(response.logprobs, self.field, [str(p) for p in points])
            if found and found[0] is not None:
                distribution = {int(k): v for k, v in found[0].items()}
                expected = sum(k * p for k, p in distribution.items())
                return self._reading(
                    expected,
                    reasoning,
                    "logprobs",
                    ordinal_confidence(distribution, self.max - self.min),
                    {
                        "distribution": {str(k): v for k, v in distribution.items()},
                        "stated": stated,
                    },
                )
        return self._reading(stated, reasoning, "stated", None, {})

    def _reading(
        self,
        value: float,
        reasoning: str,
        method: str,
        confidence: float | None,
        details: Mapping[str, Any],
    ) -> Reading:
        passed = value >= self.threshold
        return Reading(
            Status.PASS if passed else Status.FAIL,
            NumericScore(value, self.min, self.max),
            confidence=confidence,
            reasoning=reasoning,
            method=method,
            details=details,
        )

    def _stated(self, response: Response) -> tuple[float, str]:
        answer: Mapping[str, Any] | None
        try:
            answer = json_object(response)
        except Unreadable:
            answer = None
        if answer is not None and self.field in answer:
            value = answer[self.field]
            if isinstance(value, bool) or not isinstance(value, int | float):
                raise Unreadable(f"{self.field!r} is {value!r}, not a number")
            reasoning = str(answer.get(self.reasoning_field, "")) if self.reasoning_field else ""
            return self._in_range(float(value)), reasoning
        text = response.text.strip()
        match = _SCORE_LINE.search(text) or re.fullmatch(r"\s*([-+]?\d+(?:\.\d+)?)\s*", text)
        if match is None:
            match = re.search(r"(?<![\w.])([-+]?\d+(?:\.\d+)?)\s*/\s*\d+(?![\w.])", text)
        if match is None:
            raise Unreadable(f"the answer states no score on the scale {self.min:g}..{self.max:g}")
        return self._in_range(float(match.group(1))), text

    def _in_range(self, value: float) -> float:
        if not math.isfinite(value) or not self.min <= value <= self.max:
            raise Unreadable(f"score {value:g} is outside the scale {self.min:g}..{self.max:g}")
        if self.integer and value != int(value):
            raise Unreadable(f"score {value:g} is not an integer")
        return value


def ordinal_confidence(distribution: Mapping[int, float], span: float) -> float:
    """How concentrated a score distribution is: 1 - its standard deviation / the largest
    possible one (span / 2, all mass split between the two ends). 1 when one score has all
    the mass; 0 when it is split evenly between the lowest and the highest."""
    mean = sum(k * p for k, p in distribution.items())
    variance = sum(p * (k - mean) ** 2 for k, p in distribution.items())
    largest = span / 2
    return max(0.0, min(1.0, 1.0 - math.sqrt(variance) / largest)) if largest else 1.0


class ProbabilityClassifier:
    """The probability of each label from token log-probabilities, renormalised over the
    labels; PASS when the pass labels' total reaches `threshold`.

    Read at JSON `field` when given (the answer is then asked for under a schema), else at
    the first generated token that is a label. A model without log-probabilities, or an
    answer where no label has any probability, is unreadable.
    """

    wants_logprobs = True

    def __init__(
        self,
        labels: Sequence[str] = ("yes", "no"),
        pass_labels: Iterable[str] | None = None,
        *,
        threshold: float = 0.5,
        field: str | None = None,
        reasoning_field: str | None = None,
    ) -> None:
        self.labels = tuple(labels)
        if len(self.labels) < 2:
            raise ValueError("ProbabilityClassifier needs at least two labels")
        self.pass_labels = tuple(pass_labels) if pass_labels is not None else self.labels[:1]
        unknown = set(self.pass_labels) - set(self.labels)
        if unknown:
            raise ValueError(f"pass labels {sorted(unknown)} are not among {list(self.labels)}")
        if not 0.0 < threshold < 1.0:
            raise ValueError("threshold must lie strictly between 0 and 1")
        self.threshold = threshold
        self.field = field
        self.reasoning_field = reasoning_field
        self._schema: dict[str, JsonValue] | None = None
        if field is not None:
            properties: dict[str, JsonValue] = {
                field: {"type": "string", "enum": list(self.labels)}
            }
            if reasoning_field:
                properties[reasoning_field] = {"type": "string"}
            self._schema = object_schema(properties)

    @property
    def json_schema(self) -> dict[str, JsonValue] | None:
        return self._schema

    def read(self, response: Response) -> Reading:
        if not response.logprobs:
            raise Unreadable("the answer carries no token log-probabilities")
        if self.field is not None:
            found = field_probabilities(response.logprobs, self.field, self.labels)
            probabilities = found[0] if found else None
        else:
            probabilities = label_probabilities(response.logprobs, self.labels)
        if probabilities is None:
            raise Unreadable(f"no token of the answer gives any of {list(self.labels)}")
        p_pass = sum(probabilities[label] for label in self.pass_labels)
        passed = p_pass >= self.threshold
        best = max(self.labels, key=lambda label: probabilities[label])
        reasoning = ""
        if self.reasoning_field is not None:
            try:
                reasoning = str(json_object(response).get(self.reasoning_field, ""))
            except Unreadable:
                reasoning = ""
        return Reading(
            Status.PASS if passed else Status.FAIL,
            NumericScore(p_pass),
            confidence=p_pass if passed else 1.0 - p_pass,
            reasoning=reasoning or f"P({best}) = {probabilities[best]:.2f}",
            method="logprobs",
            details={"probabilities": probabilities},
        )
