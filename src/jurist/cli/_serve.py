"""`jurist serve` and `jurist keys`: run the validation service, manage its API keys."""

import json
from datetime import timedelta
from typing import TYPE_CHECKING, Annotated, Any

import typer

from jurist.cli._inputs import BadInput, exit_bad_input
from jurist.cli._kb import DatabaseOption
from jurist.core import run_sync
from jurist.store import DuplicateRecordError, StoreError

if TYPE_CHECKING:
    from jurist.store import KeyStore, StoredKey

# jurist.server is imported inside the commands: it needs the `server` extra, which every
# other command does without.

keys_app = typer.Typer(
    help="API keys for the service: make, list, rotate and revoke them in its database.",
    no_args_is_help=True,
)


def serve_command(
    *,
    host: Annotated[
        str | None,
        typer.Option("--host", help="Interface to listen on (default: JURIST_HOST, 127.0.0.1)."),
    ] = None,
    port: Annotated[
        int | None,
        typer.Option("--port", help="Port (default: JUDGE_PORT, 8005).", min=1, max=65535),
    ] = None,
    workers: Annotated[
        int, typer.Option("--workers", help="Worker processes (each loads its own model).", min=1)
    ] = 1,
) -> None:
    """Run the validation service: POST /validate, POST /judge, GET /validations/{id},
    /judgments/{id}, /rubrics, /health, /ready, /metrics (OpenAPI at /docs).

    Configuration comes from the environment (JUDGE_PORT, JUDGE_MODEL, JURIST_DATABASE_URL,
    JURIST_API_KEYS, ...). Without API keys only 127.0.0.1 is allowed.
    """
    from jurist.server import ConfigError, serve

    try:
        serve(host, port, workers)
    except ConfigError as exc:
        exit_bad_input(exc)


RoleOption = Annotated[
    str,
    typer.Option(
        "--role",
        help="user: uses the API and reads its own records; admin: also approves cycles, "
        "manages keys and reads every tenant's records.",
    ),
]


async def _keys(database: str | None) -> "KeyStore":
    from jurist.store import KeyStore

    try:
        return await KeyStore.open(database)
    except StoreError as exc:
        raise BadInput(f"--database: {exc}") from exc


def _key_row(key: "StoredKey") -> dict[str, Any]:
    return {
        "id": key.id,
        "role": key.role,
        "active": key.active,
        "rate_limit": key.rate_limit,
        "note": key.note,
        "created_at": key.created_at.isoformat(),
        "revoked_at": key.revoked_at.isoformat() if key.revoked_at else None,
        "previous_secret_expires_at": (
            key.previous_expires_at.isoformat() if key.previous_expires_at else None
        ),
    }


@keys_app.command("new")
def new(
    key_id: Annotated[str, typer.Argument(help="A name for the key, e.g. the caller's.")],
    *,
    role: RoleOption = "user",
    rate_limit: Annotated[
        str | None,
        typer.Option("--rate-limit", help='This key\'s own limit, e.g. "120/minute".'),
    ] = None,
    note: Annotated[str | None, typer.Option("--note", help="What the key is for.")] = None,
    env: Annotated[
        bool,
        typer.Option(
            "--env",
            help="Store nothing: print an entry for JURIST_API_KEYS instead (a key fixed "
            "for the service's life).",
        ),
    ] = False,
    database: DatabaseOption = None,
) -> None:
    """Make an API key and print its secret (give it to the caller; it is shown once).

    The key goes into the service's database (JURIST_DATABASE_URL, or --database): a
    running service accepts it at once, without a restart. With --env, nothing is stored
    and the hashed entry for JURIST_API_KEYS is printed instead."""
    from jurist.server import KeyRing, new_key, parse_rate
    from jurist.store import check_key_id, check_role

    secret, digest = new_key()
    try:
        check_key_id(key_id)
        check_role(role)
        if rate_limit is not None:
            parse_rate(rate_limit, "--rate-limit")
    except ValueError as exc:
        exit_bad_input(exc)
    if env:
        if rate_limit is not None:
            exit_bad_input(ValueError("--rate-limit: only keys in the database carry one"))
        entry = f"{key_id}:{role + ':' if role != 'user' else ''}sha256:{digest}"
        try:
            KeyRing.parse(entry)
        except ValueError as exc:
            exit_bad_input(exc)
        typer.echo(f"key:   {secret}")
        typer.echo(f"entry: {entry}")
        return

    async def create() -> None:
        async with await _keys(database) as keys:
            await keys.create(key_id, digest, role=role, rate_limit=rate_limit, note=note)

    try:
        run_sync(create)
    except DuplicateRecordError:
        exit_bad_input(ValueError(f"KEY_ID: a key {key_id!r} exists (revoked keys keep their ids)"))
    except (BadInput, StoreError) as exc:
        exit_bad_input(exc)
    typer.echo(f"key:   {secret}")
    typer.echo(f"stored: {key_id} ({role}); the secret is not kept, only its SHA-256")


@keys_app.command("list")
def list_keys(
    database: DatabaseOption = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print the keys as JSON.")] = False,
) -> None:
    """The keys in the database, oldest first (ids, roles, state; never secrets)."""

    async def found() -> "list[StoredKey]":
        async with await _keys(database) as keys:
            return await keys.list()

    try:
        rows = [_key_row(key) for key in run_sync(found)]
    except (BadInput, StoreError) as exc:
        exit_bad_input(exc)
    if as_json:
        typer.echo(json.dumps(rows, indent=2))
        return
    if not rows:
        typer.echo("no keys in the database: make one with `jurist keys new ID`")
        return
    for row in rows:
        state = "active" if row["active"] else f"revoked {row['revoked_at'][:16]}"
        limit = f", {row['rate_limit']}" if row["rate_limit"] else ""
        typer.echo(f"{row['id']}\t{row['role']}\t{state}{limit}\t{row['note'] or ''}".rstrip())


@keys_app.command("revoke")
def revoke(
    key_id: Annotated[str, typer.Argument(help="The key to revoke.")],
    database: DatabaseOption = None,
) -> None:
    """Revoke a key: its secrets stop working (on other service processes within
    JURIST_KEY_CACHE_S); the records it made stay, readable by admins."""

    async def revoked() -> None:
        async with await _keys(database) as keys:
            await keys.revoke(key_id)

    try:
        run_sync(revoked)
    except LookupError:
        exit_bad_input(ValueError(f"KEY_ID: no key {key_id!r} (see `jurist keys list`)"))
    except (BadInput, StoreError) as exc:
        exit_bad_input(exc)
    typer.echo(f"revoked: {key_id}")


@keys_app.command("rotate")
def rotate(
    key_id: Annotated[str, typer.Argument(help="The key to give a new secret.")],
    grace: Annotated[
        float,
        typer.Option(
            "--grace",
            help="Minutes the old secret keeps working, for callers to switch.",
            min=0,
            max=7 * 24 * 60,
        ),
    ] = 0,
    database: DatabaseOption = None,
) -> None:
    """Give a key a new secret (printed once); the key keeps its id, role and records."""
    from jurist.server import new_key

    secret, digest = new_key()

    async def rotated() -> None:
        async with await _keys(database) as keys:
            await keys.rotate(key_id, digest, grace=timedelta(minutes=grace))

    try:
        run_sync(rotated)
    except LookupError:
        exit_bad_input(ValueError(f"KEY_ID: no active key {key_id!r} (see `jurist keys list`)"))
    except (BadInput, StoreError) as exc:
        exit_bad_input(exc)
    typer.echo(f"key:   {secret}")
    typer.echo(
        f"rotated: {key_id}" + (f"; the old secret works {grace:g} more minutes" if grace else "")
    )
