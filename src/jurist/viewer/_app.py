"""The viewer as routes in an application: `install_viewer` adds them to one (the service's,
under `jurist serve`), `create_viewer_app` makes the application `jurist view` runs."""

from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from urllib.parse import urlencode

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse, RedirectResponse, Response
from fastapi.staticfiles import StaticFiles

from jurist import __version__
from jurist.store import RecordStore, StoreError
from jurist.viewer._access import Identify, NeedsKey
from jurist.viewer._calibration import router as calibration_router
from jurist.viewer._context import ViewerSetup, page
from jurist.viewer._cycles import router as cycles_router
from jurist.viewer._errors import ErrorBody, FieldError, ViewerError, wants_json
from jurist.viewer._items import router as items_router
from jurist.viewer._keys import router as keys_router
from jurist.viewer._paths import PREFIX, STATIC
from jurist.viewer._runs import router as runs_router
from jurist.viewer._validations import router as validations_router

ROUTERS = (
    runs_router,
    items_router,
    validations_router,
    calibration_router,
    cycles_router,
    keys_router,
)


def install_viewer(
    app: FastAPI,
    records: Callable[[Request], RecordStore],
    identify: Identify | None = None,
) -> None:
    """Adds the viewer's pages (under /view), their JSON twins (under /view/api) and assets
    to `app`. `records` finds the store of a request; `identify` knows the API keys (None:
    everyone is the operator, as under `jurist view` on 127.0.0.1)."""
    app.state.viewer = ViewerSetup(records=records, identify=identify)
    for router in ROUTERS:
        app.include_router(router, prefix=PREFIX)
    app.mount(STATIC, StaticFiles(packages=[("jurist.viewer", "static")]), name="viewer-static")

    @app.get(PREFIX, include_in_schema=False)
    async def _home() -> RedirectResponse:
        return RedirectResponse(f"{PREFIX}/runs", status_code=303)

    @app.exception_handler(ViewerError)
    async def _refused(request: Request, exc: ViewerError) -> Response:
        if wants_json(request.url.path):
            body = ErrorBody(error=_code(exc.status), message=exc.message)
            return JSONResponse(body.model_dump(), exc.status)
        context = {"status": exc.status, "message": exc.message}
        return page(None, request, "error.html", context, status=exc.status)

    @app.exception_handler(StoreError)
    async def _store_failed(request: Request, exc: StoreError) -> Response:
        return await _refused(request, ViewerError(503, f"the database failed: {exc}"))

    @app.exception_handler(NeedsKey)
    async def _needs_key(request: Request, exc: NeedsKey) -> Response:
        if wants_json(request.url.path):
            return JSONResponse(
                ErrorBody(error="unauthorized", message=str(exc)).model_dump(),
                401,
                headers={"WWW-Authenticate": "Bearer"},
            )
        target = request.url.path + (f"?{request.url.query}" if request.url.query else "")
        return RedirectResponse(
            f"{PREFIX}/key?{_next(target)}", status_code=303, headers={"Cache-Control": "no-store"}
        )


def create_viewer_app(database: str | None = None) -> FastAPI:
    """The application of `jurist view`: the viewer alone, over the store at `database`
    (JURIST_DATABASE_URL, else SQLite under JURIST_HOME), for the operator."""
    opened: list[RecordStore] = []

    @asynccontextmanager
    async def lifespan(_app: FastAPI) -> AsyncIterator[None]:
        opened.append(await RecordStore.open(database))
        try:
            yield
        finally:
            await opened.pop().close()

    app = FastAPI(
        title="jurist viewer",
        version=__version__,
        lifespan=lifespan,
        docs_url=None,
        redoc_url=None,
        openapi_url=f"{PREFIX}/api/openapi.json",
    )

    @app.get("/", include_in_schema=False)
    async def _root() -> RedirectResponse:
        return RedirectResponse(PREFIX, status_code=303)

    @app.exception_handler(RequestValidationError)
    async def _invalid(_request: Request, exc: RequestValidationError) -> JSONResponse:
        errors = [
            FieldError(field=".".join(str(part) for part in error["loc"][1:]), message=error["msg"])
            for error in exc.errors()
        ]
        problems = "; ".join(f"{error.field}: {error.message}" for error in errors)
        body = ErrorBody(error="invalid_request", message=problems, errors=errors)
        return JSONResponse(body.model_dump(), 422)

    install_viewer(app, lambda _request: opened[0])
    return app


def _code(status: int) -> str:
    return {404: "not_found", 409: "conflict", 422: "invalid_request", 503: "unavailable"}.get(
        status, "error"
    )


def _next(target: str) -> str:
    return urlencode({"next": target})
