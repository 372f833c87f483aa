"""One grammar of the short forms a command line takes: `FORM:OPTION` (`rubric:tone`,
`criterion:TEXT`, `claims:mean`, `anchored:5`), a bare `FORM`, or the path of a spec file.

Judge shorthands become spec dicts (built by judge_from_spec like any spec); other kinds of
names (calibration methods) keep a table of their forms here, filled by their package."""

from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Generic, TypeVar

T = TypeVar("T")

SPEC_SUFFIXES = (".yaml", ".yml", ".json")


@dataclass(frozen=True)
class Shorthand:
    """A short form split: `form` before the first colon, `option` after it ("" if none)."""

    text: str
    form: str
    option: str


def split_shorthand(text: str) -> Shorthand:
    form, _, option = text.partition(":")
    return Shorthand(text, form, option)


def judge_shorthand(text: str) -> tuple[str, dict[str, Any] | Path] | None:
    """The judge a short form names: ("rubric", spec) for `rubric:ID`, ("criterion", spec)
    for `criterion:TEXT`, ("file", path) for a spec file's path; None for none of them (a
    bare word is never guessed at)."""
    short = split_shorthand(text)
    if short.form == "rubric" and short.option:
        return "rubric", {"type": "rubric", "rubric": short.option.strip()}
    if short.form == "criterion" and short.option.strip():
        return "criterion", {"type": "criterion", "criterion": short.option.strip()}
    path = Path(text)
    if path.suffix.lower() in SPEC_SUFFIXES:
        return "file", path
    return None


class ShorthandTable(Mapping[str, Callable[[str, str], T]], Generic[T]):
    """Things named `FORM[:OPTION]`: each form's builder takes the whole name (for its
    messages) and the option."""

    def __init__(self, what: str, builders: Mapping[str, Callable[[str, str], T]]) -> None:
        self.what = what
        self._builders = dict(builders)

    def __getitem__(self, form: str) -> Callable[[str, str], T]:
        return self._builders[form]

    def __iter__(self) -> Iterator[str]:
        return iter(self._builders)

    def __len__(self) -> int:
        return len(self._builders)

    def register(self, form: str, build: Callable[[str, str], T]) -> None:
        self._builders[form] = build

    def resolve(self, text: str) -> T:
        """What `text` names; a ValueError names what is wrong with it."""
        short = split_shorthand(text)
        if short.form not in self._builders:
            raise ValueError(f"{self.what} {text!r}: one of {sorted(self._builders)}")
        return self._builders[short.form](text, short.option)
