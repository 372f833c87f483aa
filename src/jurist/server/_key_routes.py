"""API keys over HTTP, for administrators: make, list, rotate and revoke the keys in the
database. A secret is shown once, in the answer that made it; only its SHA-256 is kept.

The first key made turns authentication on for the whole service (within JURIST_KEY_CACHE_S
on other processes): from then on every request needs a key.
"""

from datetime import datetime, timedelta
from typing import Annotated, Literal

from fastapi import APIRouter, Request
from pydantic import BaseModel, ConfigDict, Field, StringConstraints

from jurist.server._edge import StrictJsonRoute
from jurist.server._errors import ServiceError, error_responses
from jurist.server._keys import new_key
from jurist.server._ratelimit import parse_rate
from jurist.server._routes import Caller, caller_of, service_of
from jurist.store import DuplicateRecordError, KeyStore, StoredKey, StoreError
from jurist.viewer import FieldError

router = APIRouter(tags=["keys"], route_class=StrictJsonRoute)

MAX_GRACE_S = 7 * 24 * 3600
KeyId = Annotated[str, StringConstraints(pattern=r"^[A-Za-z0-9_.-]{1,64}$")]
# The rates JURIST_RATE_LIMIT takes, in the schema so clients and fuzzers know them.
Rate = Annotated[
    str,
    StringConstraints(
        max_length=40,
        pattern=r"^[1-9][0-9]{0,8} ?(/|per) ?([1-9][0-9]{0,3} ?)?(second|minute|hour|day)s?$",
    ),
]


class KeyBody(BaseModel):
    id: str
    role: Literal["user", "admin"]
    rate_limit: str | None = Field(description="this key's own limit; None: the service's")
    note: str | None
    active: bool
    created_at: datetime
    updated_at: datetime
    revoked_at: datetime | None
    previous_secret_expires_at: datetime | None = Field(
        description="until when the secret replaced by the last rotation still works"
    )


class NewKey(BaseModel):
    model_config = ConfigDict(extra="forbid")

    id: KeyId = Field(description="the key's id: names the tenant in every record it makes")
    role: Literal["user", "admin"] = "user"
    rate_limit: Rate | None = Field(
        None, description='e.g. "120/minute"; None: the service\'s limit'
    )
    note: str | None = Field(None, max_length=500)


class Rotation(BaseModel):
    model_config = ConfigDict(extra="forbid")

    grace_s: int = Field(
        0, ge=0, le=MAX_GRACE_S, description="seconds the replaced secret keeps working"
    )


class KeyWithSecret(BaseModel):
    key: KeyBody
    secret: str = Field(description="the secret: shown this once, give it to the caller")


def _body(stored: StoredKey) -> KeyBody:
    return KeyBody(
        id=stored.id,
        role="admin" if stored.role == "admin" else "user",
        rate_limit=stored.rate_limit,
        note=stored.note,
        active=stored.active,
        created_at=stored.created_at,
        updated_at=stored.updated_at,
        revoked_at=stored.revoked_at,
        previous_secret_expires_at=stored.previous_expires_at,
    )


def _admin_keys(request: Request) -> KeyStore:
    if not caller_of(request).is_admin:
        raise ServiceError(403, "forbidden", "managing API keys needs an admin key")
    keys = service_of(request).auth.keys
    if keys is None:
        raise ServiceError(503, "store_unavailable", "the key table is not open")
    return keys


def _unavailable(exc: StoreError) -> ServiceError:
    return ServiceError(503, "store_unavailable", str(exc))


@router.get(
    "/keys",
    response_model=list[KeyBody],
    responses=error_responses(401, 403, 429, 503),
    summary="The API keys in the database (admin)",
)
async def list_keys(request: Request, key_id: Caller) -> list[KeyBody]:
    keys = _admin_keys(request)
    try:
        return [_body(stored) for stored in await keys.list()]
    except StoreError as exc:
        raise _unavailable(exc) from None


@router.post(
    "/keys",
    response_model=KeyWithSecret,
    status_code=201,
    responses=error_responses(401, 403, 409, 413, 422, 429, 503),
    summary="Make an API key (admin); its secret is in this answer only",
)
async def create_key(body: NewKey, request: Request, key_id: Caller) -> KeyWithSecret:
    keys = _admin_keys(request)
    request.state.audit_detail = body.model_dump(exclude={"note"})
    if body.rate_limit is not None:
        try:
            parse_rate(body.rate_limit, "rate_limit")
        except ValueError as exc:
            raise ServiceError(
                422,
                "invalid_request",
                str(exc),
                errors=[FieldError(field="rate_limit", message=str(exc))],
            ) from None
    secret, digest = new_key()
    try:
        stored = await keys.create(
            body.id, digest, role=body.role, rate_limit=body.rate_limit, note=body.note
        )
    except DuplicateRecordError:
        raise ServiceError(
            409, "conflict", f"a key {body.id!r} exists (revoked keys keep their ids)"
        ) from None
    except StoreError as exc:
        raise _unavailable(exc) from None
    service_of(request).auth.forget()
    return KeyWithSecret(key=_body(stored), secret=secret)


@router.post(
    "/keys/{target}/rotate",
    response_model=KeyWithSecret,
    responses=error_responses(401, 403, 404, 413, 422, 429, 503),
    summary="Give a key a new secret (admin); the old one works for grace_s more",
)
async def rotate_key(
    target: str, body: Rotation, request: Request, key_id: Caller
) -> KeyWithSecret:
    keys = _admin_keys(request)
    request.state.audit_detail = {"key": target, **body.model_dump()}
    secret, digest = new_key()
    try:
        stored = await keys.rotate(target, digest, grace=timedelta(seconds=body.grace_s))
    except LookupError:
        raise ServiceError(404, "not_found", f"no active key {target!r}") from None
    except StoreError as exc:
        raise _unavailable(exc) from None
    service_of(request).auth.forget()
    return KeyWithSecret(key=_body(stored), secret=secret)


@router.delete(
    "/keys/{target}",
    response_model=KeyBody,
    responses=error_responses(401, 403, 404, 429, 503),
    summary="Revoke a key (admin): its secrets stop working, its records stay",
)
async def revoke_key(target: str, request: Request, key_id: Caller) -> KeyBody:
    keys = _admin_keys(request)
    request.state.audit_detail = {"key": target}
    try:
        stored = await keys.revoke(target)
    except LookupError:
        raise ServiceError(404, "not_found", f"no key {target!r}") from None
    except StoreError as exc:
        raise _unavailable(exc) from None
    service_of(request).auth.forget()
    return _body(stored)
