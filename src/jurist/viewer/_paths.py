"""Where the viewer lives in an application: its pages under /view, their JSON twins under
/view/api, its assets under /view/static; and how a page links to another with its filters."""

from collections.abc import Mapping
from typing import Any
from urllib.parse import urlencode

PREFIX = "/view"
API = f"{PREFIX}/api"
STATIC = f"{PREFIX}/static"


def with_query(path: str, params: Mapping[str, Any]) -> str:
    """`path` with the parameters that have a value (a filter left empty is no filter)."""
    given = {name: value for name, value in params.items() if value not in (None, "")}
    return f"{path}?{urlencode(given)}" if given else path


def page_link(path: str, params: Mapping[str, Any], number: int, pages: int) -> str | None:
    """Page `number` of the list at `path` with the same `params`; None past either end."""
    if number < 1 or number > pages:
        return None
    filters = {name: value for name, value in params.items() if name != "per_page"}
    return with_query(path, {**filters, "page": number, "per_page": params.get("per_page")})
