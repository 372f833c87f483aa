"""Exit codes of the `jurist` command, one per outcome a script may want to branch on."""

from enum import IntEnum

from jurist.core import Status


class Exit(IntEnum):
    PASS = 0
    FAIL = 1
    BAD_INPUT = 2
    UNDECIDED = 3  # ERROR or ABSTAIN: jurist could not decide, which is not a FAIL


def exit_code(status: Status) -> Exit:
    if status is Status.PASS:
        return Exit.PASS
    if status is Status.FAIL:
        return Exit.FAIL
    return Exit.UNDECIDED
