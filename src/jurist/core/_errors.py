"""The root of every error jurist raises, so that "anything jurist refused" is one `except`."""


class JuristError(Exception):
    """Something jurist refused or could not do.

    Each of jurist's errors also keeps the built-in base it always had (`ValueError` for bad
    input, for instance), so code that catches those still catches what it caught.
    """
