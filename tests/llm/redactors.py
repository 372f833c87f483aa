"""Redactors for `load_redactor("redactors:...")` in test_redaction.py."""


class Shouting:
    """A redactor class: built with no arguments."""

    def redact(self, text: str) -> str:
        return text.upper()


SHOUTING = Shouting()


def shout(text: str) -> str:
    return text.upper() + "!"


class Namespace:
    inner = Shouting


class NeedsArguments:
    def __init__(self, table: dict[str, str]) -> None:
        self.table = table

    def redact(self, text: str) -> str:
        return self.table.get(text, text)


class NoRedactMethod:
    pass


NUMBER = 42
