"""The key form of the viewer under `jurist serve`: a browser gives its API key once and
keeps it in the viewer's cookie (see `_access`); forgetting it clears the cookie."""

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response

from jurist.viewer._access import KEY_COOKIE, form_fields, same_origin
from jurist.viewer._context import ViewerSetup, page
from jurist.viewer._errors import ViewerError
from jurist.viewer._paths import PREFIX

router = APIRouter(include_in_schema=False)

_COOKIE_DAYS = 7


@router.get("/key", response_class=HTMLResponse)
async def key_form(request: Request, next: str = PREFIX) -> Response:
    return page(None, request, "key.html", {"next": _local(next), "problem": None})


@router.post("/key")
async def give_key(request: Request) -> Response:
    setup: ViewerSetup = request.app.state.viewer
    if not same_origin(request):
        raise ViewerError(403, "the key form must be sent from the viewer's own page")
    fields = await form_fields(request)
    key = fields.get("key", "").strip()
    target = _local(fields.get("next", PREFIX))
    if setup.identify is None:
        return RedirectResponse(target, status_code=303)
    if not key or await setup.identify(key) is None:
        problem = "key: not a key this service knows (unknown, revoked or mistyped)"
        context = {"next": target, "problem": problem}
        return page(None, request, "key.html", context, status=401)
    answer = RedirectResponse(target, status_code=303)
    answer.set_cookie(
        KEY_COOKIE,
        key,
        max_age=_COOKIE_DAYS * 24 * 3600,
        path=PREFIX,
        secure=request.url.scheme == "https",
        httponly=True,
        samesite="strict",
    )
    return answer


@router.post("/key/forget")
async def forget_key(request: Request) -> Response:
    if not same_origin(request):
        raise ViewerError(403, "forgetting the key must be asked from the viewer's own page")
    answer = RedirectResponse(f"{PREFIX}/key", status_code=303)
    answer.delete_cookie(KEY_COOKIE, path=PREFIX)
    return answer


def _local(target: str) -> str:
    """Only the viewer's own pages are places to go back to: never another site."""
    if target.startswith(PREFIX) and not target.startswith("//") and "\\" not in target:
        return target
    return PREFIX
