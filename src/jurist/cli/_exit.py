"""Exit codes of the `jurist` command, one per outcome a script may want to branch on."""

import os
import sys
from enum import IntEnum
from typing import NoReturn

import typer

from jurist.core import Status
from jurist.llm import generation_running


class Exit(IntEnum):
    PASS = 0
    FAIL = 1
    BAD_INPUT = 2
    UNDECIDED = 3  # ERROR or ABSTAIN: jurist could not decide, which is not a FAIL
    INTERRUPTED = 130  # what a shell reports for Ctrl-C


def exit_code(status: Status) -> Exit:
    if status is Status.PASS:
        return Exit.PASS
    if status is Status.FAIL:
        return Exit.FAIL
    return Exit.UNDECIDED


def exit_interrupted(message: str) -> NoReturn:
    """Leave after Ctrl-C, once the run has been stored as interrupted.

    A generation the embedded runtime has started cannot be stopped, and the interpreter
    joins its thread at exit: a normal exit would sit there until it ends, half a minute or
    more on the default model. Everything worth keeping is stored by now, so leave at once.
    """
    typer.echo(message, err=True)
    if generation_running():
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(Exit.INTERRUPTED)
    raise typer.Exit(Exit.INTERRUPTED)
