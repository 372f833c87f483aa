"""The API's documentation pages, /docs (Swagger UI) and /redoc (ReDoc), with their scripts,
styles and icon served by the service itself from files installed with it (the copies the
fastapi-offline package ships), not from a CDN: the pages work with no network. Each page's
Content-Security-Policy lets it load nothing from any other host (ReDoc's sidebar would
otherwise fetch its vendor's logo)."""

import base64
import hashlib
import re
from importlib.resources import files

from fastapi import FastAPI, Request
from fastapi.openapi.docs import (
    get_redoc_html,
    get_swagger_ui_html,
    get_swagger_ui_oauth2_redirect_html,
)
from fastapi.responses import HTMLResponse
from fastapi.staticfiles import StaticFiles

DOCS = "/docs"
REDOC = "/redoc"
DOCS_ASSETS = "/docs/assets"
_OAUTH2_REDIRECT = "/docs/oauth2-redirect"

# Inline styles: ReDoc writes its styles at run time and Swagger UI sets style attributes.
# Inline scripts: only the page's own, allowed by their hashes.
_POLICY = (
    "default-src 'none'; script-src 'self'{scripts}; style-src 'self' 'unsafe-inline'; "
    "img-src 'self' data:; font-src 'self' data:; connect-src 'self'; "
    "worker-src 'self' blob:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
)
_INLINE_SCRIPT = re.compile(r"<script>(.*?)</script>", re.DOTALL)


def install_docs(app: FastAPI) -> None:
    """Adds /docs, /redoc and their assets to `app` (made with docs_url and redoc_url None)."""
    assets = files("fastapi_offline").joinpath("static")
    app.mount(DOCS_ASSETS, StaticFiles(directory=str(assets)), name="docs-assets")
    title = app.title

    def openapi_url(request: Request) -> str:
        return f"{request.scope.get('root_path', '')}{app.openapi_url}"

    def asset(request: Request, name: str) -> str:
        return f"{request.scope.get('root_path', '')}{DOCS_ASSETS}/{name}"

    @app.get(DOCS, include_in_schema=False)
    async def swagger_ui(request: Request) -> HTMLResponse:
        page = get_swagger_ui_html(
            openapi_url=openapi_url(request),
            title=f"{title} - Swagger UI",
            oauth2_redirect_url=_OAUTH2_REDIRECT,
            swagger_js_url=asset(request, "swagger-ui-bundle.js"),
            swagger_css_url=asset(request, "swagger-ui.css"),
            swagger_favicon_url=asset(request, "favicon.png"),
            # No badge from the public validator: it would send the schema's address away.
            swagger_ui_parameters={"validatorUrl": None, **(app.swagger_ui_parameters or {})},
        )
        return _with_policy(page)

    @app.get(_OAUTH2_REDIRECT, include_in_schema=False)
    async def swagger_ui_redirect() -> HTMLResponse:
        return _with_policy(get_swagger_ui_oauth2_redirect_html())

    @app.get(REDOC, include_in_schema=False)
    async def redoc(request: Request) -> HTMLResponse:
        page = get_redoc_html(
            openapi_url=openapi_url(request),
            title=f"{title} - ReDoc",
            redoc_js_url=asset(request, "redoc.standalone.js"),
            redoc_favicon_url=asset(request, "favicon.png"),
            with_google_fonts=False,
        )
        return _with_policy(page)


def _with_policy(page: HTMLResponse) -> HTMLResponse:
    html = bytes(page.body).decode()
    scripts = "".join(
        f" 'sha256-{base64.b64encode(hashlib.sha256(script.encode()).digest()).decode()}'"
        for script in _INLINE_SCRIPT.findall(html)
    )
    page.headers["Content-Security-Policy"] = _POLICY.format(scripts=scripts)
    return page
