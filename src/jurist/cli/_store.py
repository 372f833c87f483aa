"""`jurist store`: the service's records kept no longer than needed, and the key that seals
raw content."""

import json
import re
from datetime import UTC, datetime, timedelta
from typing import Annotated

import typer

from jurist.cli._inputs import BadInput, exit_bad_input
from jurist.cli._kb import DatabaseOption
from jurist.core import run_sync
from jurist.store import PurgeReport, RecordStore, StoreError, purge_records

store_app = typer.Typer(
    help="The service's records: purge old ones, make a key to seal raw content.",
    no_args_is_help=True,
)

_AGE = re.compile(r"(?P<amount>\d+(?:\.\d+)?)\s*(?P<unit>[dhw])")
_UNITS = {"h": timedelta(hours=1), "d": timedelta(days=1), "w": timedelta(weeks=1)}


def parse_age(text: str) -> timedelta:
    """An age like "30d", "12h" or "2w"; a unit is required, so "30" is not read as days or
    seconds by guess."""
    match = _AGE.fullmatch(text.strip().lower())
    if match is None:
        raise BadInput(f"--older-than {text!r}: write an age with its unit, like 30d, 12h or 2w")
    age = float(match["amount"]) * _UNITS[match["unit"]]
    if age <= timedelta(0):
        raise BadInput(f"--older-than {text!r}: the age must be more than zero")
    return age


@store_app.command("purge")
def purge(
    *,
    older_than: Annotated[
        str,
        typer.Option(
            "--older-than",
            help="Delete what is older than this: 30d, 12h, 2w.",
            show_default=False,
        ),
    ],
    database: DatabaseOption = None,
    dry_run: Annotated[
        bool, typer.Option("--dry-run", help="Count what would be deleted; delete nothing.")
    ] = False,
    with_runs: Annotated[
        bool,
        typer.Option(
            "--runs",
            help="Also delete finished runs (jurist eval, calibrations) last updated before "
            "the cutoff, with their judgments.",
        ),
    ] = False,
    batch_size: Annotated[
        int, typer.Option("--batch-size", help="Rows deleted per transaction.", min=1)
    ] = 500,
    as_json: Annotated[bool, typer.Option("--json", help="Print the counts as JSON.")] = False,
) -> None:
    """Delete the service's records older than an age: validations with their judgments,
    the judgments of POST /judge, audit entries and rate-limit counts, in batches.

    Runs of `jurist eval` and calibrations are your own results and stay unless --runs is
    given; a run still running is never deleted.
    """

    async def run() -> PurgeReport:
        cutoff = datetime.now(UTC) - parse_age(older_than)
        try:
            store = await RecordStore.open(database)
        except StoreError as exc:
            raise BadInput(f"--database: {exc}") from exc
        async with store:
            return await purge_records(
                store, cutoff, runs=with_runs, batch_size=batch_size, dry_run=dry_run
            )

    try:
        report = run_sync(run)
    except (BadInput, StoreError) as exc:
        exit_bad_input(exc)
    if as_json:
        payload = {
            "cutoff": report.cutoff.isoformat(),
            "dry_run": report.dry_run,
            "deleted": report.deleted,
        }
        typer.echo(json.dumps(payload, indent=2))
        return
    verb = "would delete" if dry_run else "deleted"
    typer.echo(f"older than {report.cutoff.isoformat(timespec='seconds')}:")
    for table, count in report.deleted.items():
        if table == "runs" and not with_runs:
            typer.echo(f"  {table:<18} kept (--runs deletes them)")
            continue
        typer.echo(f"  {table:<18} {verb} {count}")


@store_app.command("new-key")
def new_key() -> None:
    """Print a new key for JURIST_ENCRYPTION_KEY. To rotate, put it first and keep the old
    ones after it, comma-separated, until nothing sealed with them is left."""
    try:
        from jurist.server import new_encryption_key
    except ImportError as exc:  # the `server` extra brings the cryptography package
        exit_bad_input(
            BadInput(f"sealing needs the server extra: pip install jurist[server] ({exc})")
        )
    typer.echo(new_encryption_key())
