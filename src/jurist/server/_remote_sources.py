"""Trusted sources served by another jurist service (TRUSTED_SOURCES_URL): fact-checking in
one service searches the knowledge base of another, over HTTP.

The protocol is the service's own `POST /sources/search` and `POST /sources/check`, so any
jurist server with a knowledge base is a trusted-sources service for the others.
"""

from collections.abc import Sequence
from typing import Annotated, Any

import httpx
from pydantic import BaseModel, Field

from jurist.core import JuristError
from jurist.judges import Passage, UnknownSource

NonBlank = Annotated[str, Field(pattern=r"\S", max_length=500)]


class SearchRequest(BaseModel):
    query: NonBlank
    sources: list[NonBlank] = Field(default_factory=list)
    limit: int = Field(3, ge=1, le=50)


class SearchResponse(BaseModel):
    passages: list[Passage]


class SourcesRequest(BaseModel):
    sources: list[NonBlank] = Field(default_factory=list)


class SourcesError(JuristError, RuntimeError):
    """The trusted-sources service could not answer."""


class RemoteSources:
    """A `Retriever` that asks another jurist service."""

    def __init__(self, base_url: str, *, api_key: str | None = None, timeout_s: float = 30.0):
        headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}
        self.base_url = base_url.rstrip("/")
        self._client = httpx.AsyncClient(base_url=self.base_url, headers=headers, timeout=timeout_s)

    async def retrieve(self, query: str, sources: Sequence[str], limit: int) -> list[Passage]:
        body = SearchRequest(query=query, sources=list(sources), limit=limit)
        answer = await self._post("/sources/search", body.model_dump(), sources)
        return SearchResponse.model_validate(answer).passages

    async def check_sources(self, sources: Sequence[str]) -> None:
        body = SourcesRequest(sources=list(sources))
        await self._post("/sources/check", body.model_dump(), sources)

    async def _post(self, path: str, body: dict[str, Any], sources: Sequence[str]) -> Any:
        try:
            response = await self._client.post(path, json=body)
        except httpx.HTTPError as exc:
            raise SourcesError(
                f"trusted sources at {self.base_url} unreachable: {type(exc).__name__}: {exc}"
            ) from exc
        if response.status_code == 422:
            _raise_unknown(response.json(), sources)
        if response.status_code == 204:
            return None
        if response.status_code != 200:
            raise SourcesError(
                f"trusted sources at {self.base_url}{path} answered {response.status_code}: "
                f"{response.text[:300]}"
            )
        return response.json()

    async def close(self) -> None:
        await self._client.aclose()


def _raise_unknown(answer: Any, sources: Sequence[str]) -> None:
    """The other service's "unknown_source" answer names the source by its index."""
    if not isinstance(answer, dict) or answer.get("error") != "unknown_source":
        return
    for error in answer.get("errors", ()):
        field = str(error.get("field", ""))
        index = field.removeprefix("sources[").removesuffix("]")
        if index.isdigit() and int(index) < len(sources):
            raise UnknownSource(sources[int(index)])
