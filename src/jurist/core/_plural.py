"""Counts in words that agree with them: `1 error`, `2 errors`."""


def counted(n: int, noun: str, plural: str | None = None) -> str:
    """`n` and the noun in the number `n` takes; `plural` for a noun that does not just take
    an s (`counted(2, "criterion", "criteria")`)."""
    return f"{n} {noun if n == 1 else plural or noun + 's'}"
