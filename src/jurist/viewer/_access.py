"""Who is looking: every page and JSON answer of the viewer is narrowed to what its viewer
may read. `jurist view` on 127.0.0.1 is the operator's own (every record); under
`jurist serve` the service's API keys decide, as they do for its other endpoints: a `user`
key sees the records it made, an `admin` key sees every record and may approve or reject a
paused cycle.

A browser cannot add an Authorization header to a link, so under `jurist serve` the key
given once in the viewer's key form is kept in a cookie: HttpOnly (no script reads it),
SameSite=Strict (no other site's page sends it) and only for /view. Every form that changes
something also checks that it was posted from the viewer's own origin.
"""

from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from urllib.parse import parse_qs, urlsplit

from starlette.requests import Request

from jurist.core import JuristError

KEY_COOKIE = "jurist_view_key"
FORM_MAX_BYTES = 64 * 1024


@dataclass(frozen=True)
class Viewer:
    """`owner`: the key whose records this viewer sees, or None for every record."""

    owner: str | None
    admin: bool
    key_id: str | None = None  # who decides, in what an approval records

    def may_read(self, owner: str | None) -> bool:
        return self.owner is None or owner == self.owner


OPERATOR_VIEWER = Viewer(owner=None, admin=True)

# How the application in front of the viewer knows a key: the viewer of a key it knows,
# None for a key it does not. Given None (no key sent), it answers the operator when the
# application needs no keys at all. Without one (`jurist view`), everyone is the operator.
Identify = Callable[[str | None], Awaitable[Viewer | None]]


class NeedsKey(JuristError):
    """The request carries no key the service knows: pages send the browser to the key
    form, JSON answers 401."""


def sent_key(request: Request) -> str | None:
    """The key a request carries: its Authorization header, else the viewer's cookie."""
    header = request.headers.get("authorization")
    if header is not None:
        scheme, _, token = header.partition(" ")
        if scheme.lower() == "bearer" and token.strip():
            return token.strip()
    return request.cookies.get(KEY_COOKIE) or None


async def viewer_of(request: Request, identify: Identify | None) -> Viewer:
    if identify is None:
        return OPERATOR_VIEWER
    found = await identify(sent_key(request))
    if found is None:
        raise NeedsKey("missing, unknown or revoked API key: send Authorization: Bearer <key>")
    return found


def same_origin(request: Request) -> bool:
    """Whether a state-changing request came from the viewer's own pages: browsers send
    Origin (or at least Sec-Fetch-Site) on every form POST; a request with neither is not a
    browser's (a script with the key in its header), which no other site can make."""
    site = request.headers.get("sec-fetch-site")
    if site is not None and site not in ("same-origin", "none"):
        return False
    origin = request.headers.get("origin")
    if origin is None:
        return site is None or site == "same-origin"
    if origin == "null":  # a privacy-sandboxed page: only Sec-Fetch-Site can vouch for it
        return site == "same-origin"
    parts = urlsplit(origin)
    return parts.netloc == request.headers.get("host") and parts.scheme == request.url.scheme


async def form_fields(request: Request) -> Mapping[str, str]:
    """The fields of an urlencoded form (the viewer's forms have a few short fields): the
    last value of each. A body that is not such a form gives none."""
    kind = request.headers.get("content-type", "").split(";")[0].strip().lower()
    if kind != "application/x-www-form-urlencoded":
        return {}
    body = bytearray()
    async for chunk in request.stream():
        body += chunk
        if len(body) > FORM_MAX_BYTES:
            return {}
    parsed = parse_qs(body.decode("utf-8", "replace"), keep_blank_values=True)
    return {name: values[-1] for name, values in parsed.items()}
