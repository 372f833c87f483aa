"""What every page and JSON twin of the viewer is given (`Look`: the viewer, the stores) and
how a page is drawn (`page`): one Jinja2 environment over the templates shipped in the
package, autoescaped."""

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Annotated, Any

from fastapi import Depends, Query, Request
from fastapi.responses import HTMLResponse
from fastapi.templating import Jinja2Templates
from jinja2 import Environment, PackageLoader, StrictUndefined, select_autoescape

from jurist import __version__
from jurist.autonomy import AutonomyStore
from jurist.store import RecordStore
from jurist.viewer._access import Identify, Viewer, viewer_of
from jurist.viewer._paths import API, PREFIX, STATIC

# The pages load nothing but the viewer's own script, styles and inline SVG: no other host,
# no inline script, no inline style attribute.
POLICY = (
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
    "connect-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'"
)
MAX_PER_PAGE = 500
# Past this, a page's offset would no longer fit the databases' 64-bit integers.
MAX_PAGE = 1_000_000_000
PER_PAGE = 50


@dataclass
class ViewerSetup:
    """Kept on `app.state.viewer`: how to find the records' store and who is looking."""

    records: Callable[[Request], RecordStore]
    # None: everyone is the operator (`jurist view`); else the service's keys decide.
    identify: Identify | None = None

    @property
    def keyed(self) -> bool:
        return self.identify is not None


@dataclass(frozen=True)
class Looking:
    """One request's view: who looks, and the stores it reads."""

    viewer: Viewer
    records: RecordStore
    request: Request

    @property
    def autonomy(self) -> AutonomyStore:
        """The cycles' and reputations' store, on the records' engine."""
        state = self.request.app.state
        found: AutonomyStore | None = getattr(state, "viewer_autonomy", None)
        if found is None or found.engine is not self.records.engine:
            found = state.viewer_autonomy = AutonomyStore(self.records.engine)
        return found


async def looking(request: Request) -> Looking:
    setup: ViewerSetup = request.app.state.viewer
    viewer = await viewer_of(request, setup.identify)
    return Looking(viewer, setup.records(request), request)


Look = Annotated[Looking, Depends(looking)]


@dataclass(frozen=True)
class Paging:
    """Which slice of a long list to show: page 1 is the first."""

    page: int
    per_page: int

    @property
    def offset(self) -> int:
        return (self.page - 1) * self.per_page

    def pages(self, total: int) -> int:
        return max(1, -(-total // self.per_page))


def paging(
    page: Annotated[int, Query(ge=1, le=MAX_PAGE, description="1 is the first page")] = 1,
    per_page: Annotated[int, Query(ge=1, le=MAX_PER_PAGE, description="rows on a page")] = PER_PAGE,
) -> Paging:
    return Paging(page, per_page)


Paged = Annotated[Paging, Depends(paging)]

_environment = Environment(
    loader=PackageLoader("jurist.viewer", "templates"),
    autoescape=select_autoescape(default=True, default_for_string=True),
    undefined=StrictUndefined,  # a misspelt name fails the page's test, not silently blank
    trim_blocks=True,
    lstrip_blocks=True,
)
templates = Jinja2Templates(env=_environment)


def page(
    look: Looking | None,
    request: Request,
    template: str,
    context: Mapping[str, Any],
    status: int = 200,
) -> HTMLResponse:
    """`template` drawn with `context`, and what every page's frame needs."""
    setup: ViewerSetup = request.app.state.viewer
    frame = {
        "prefix": PREFIX,
        "api": API,
        "static": STATIC,
        "version": __version__,
        "viewer": None if look is None else look.viewer,
        "keyed": setup.keyed,
    }
    answer = templates.TemplateResponse(request, template, {**frame, **context}, status_code=status)
    answer.headers["Content-Security-Policy"] = POLICY
    answer.headers["Cache-Control"] = "no-store"  # records change; a key's pages are its own
    return answer
