"""Methods by the name `jurist calibrate --method` and bench/quality.py take.

A name is `BASE` or `BASE:OPTION`: `claims:mean` (another aggregate), `anchored:5` (examples
per criterion), `sampled:5` (samples), `coverage:focus` (coverage and the off-topic claims,
combined). Kept apart from `_methods` because the methods built on the plain rubric
(anchored, sampled) import it.
"""

from collections.abc import Callable

from jurist.calibration._anchored import Anchored
from jurist.calibration._decomposed import SentenceChecks
from jurist.calibration._methods import (
    CalibrationMethod,
    ClaimConsistency,
    Coverage,
    Focus,
    PlainRubric,
    RubricMethod,
)
from jurist.calibration._sampled import Sampled
from jurist.specs import ShorthandTable


def _no_option(method: type[CalibrationMethod]) -> "Callable[[str, str], CalibrationMethod]":
    def build(name: str, option: str) -> CalibrationMethod:
        if option:
            raise ValueError(f"--method {name!r}: {method.name} takes no option")
        return method()

    return build


def _count(name: str, option: str) -> int:
    try:
        count = int(option)
    except ValueError:
        raise ValueError(f"--method {name!r}: {option!r} is not a whole number") from None
    if count < 1:
        raise ValueError(f"--method {name!r}: the count must be at least 1, got {count}")
    return count


def _off_topic(name: str, option: str) -> bool:
    if option not in ("", "focus"):
        raise ValueError(f"--method {name!r}: coverage takes only the option 'focus'")
    return option == "focus"


METHODS: ShorthandTable[CalibrationMethod] = ShorthandTable(
    "--method",
    {
        "plain": _no_option(PlainRubric),
        "rubric": _no_option(RubricMethod),
        "claims": lambda name, option: ClaimConsistency(option) if option else ClaimConsistency(),
        "coverage": lambda name, option: Coverage(_off_topic(name, option)),
        "focus": _no_option(Focus),
        "sentences": _no_option(SentenceChecks),
        "anchored": lambda name, option: Anchored(_count(name, option)) if option else Anchored(),
        "sampled": lambda name, option: Sampled(_count(name, option)) if option else Sampled(),
    },
)


def method_named(name: str) -> CalibrationMethod:
    """The method called `name`; a ValueError names what is wrong with it."""
    return METHODS.resolve(name)
