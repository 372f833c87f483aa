"""Scripted answers for the grounding judges: claim lists, verdicts with P(supported), and a
step that answers each request according to what it asks (claims or a verdict)."""

import json
from collections.abc import Callable, Mapping

from jurist.llm import Request, Response
from scripted import LOGPROB_CAPABILITIES, ScriptedModel, answer, with_logprobs


def claims_answer(*claims: str) -> Response:
    return answer(json.dumps({"claims": list(claims)}))


def verdict_answer(p_supported: float, quote: str = "", verdict: str | None = None) -> Response:
    """A schema-shaped verdict whose "verdict" token carries P(supported)."""
    rest = (1.0 - p_supported) / 2
    said = verdict or ("supported" if p_supported >= 0.5 else "not_mentioned")
    return with_logprobs(
        '{"verdict": "',
        (said, {"supported": p_supported, "contradicted": rest, "not_mentioned": rest}),
        f'", "quote": {json.dumps(quote)}}}',
    )


def verdicts_answer(*items: tuple[int, float, str]) -> Response:
    """A one-call answer: (claim number, P(supported), quote) per verdict, in the order given."""
    pieces: list[str | tuple[str, dict[str, float]]] = ['{"verdicts": [']
    for position, (number, p, quote) in enumerate(items):
        rest = (1.0 - p) / 2
        said = "supported" if p >= 0.5 else "not_mentioned"
        pieces.append(("," if position else "") + f'{{"claim": {number}, "verdict": "')
        pieces.append((said, {"supported": p, "contradicted": rest, "not_mentioned": rest}))
        pieces.append(f'", "quote": {json.dumps(quote)}}}')
    pieces.append("]}")
    return with_logprobs(*pieces)


def asks_for_claims(request: Request) -> bool:
    schema = request.json_schema or {}
    return "claims" in schema.get("properties", {})


def claim_of(request: Request) -> str:
    return request.messages[-1].content.rstrip().rsplit("Claim: ", 1)[1]


def router(
    claims: Response | Exception | Callable[[Request], Response],
    verdicts: Mapping[str, Response | Exception],
) -> Callable[[Request], Response]:
    """One step that answers every call: the claim list, or the verdict for the claim asked."""

    def step(request: Request) -> Response:
        if asks_for_claims(request):
            outcome = claims(request) if callable(claims) else claims
        else:
            outcome = verdicts[claim_of(request)]
        if isinstance(outcome, Exception):
            raise outcome
        return outcome

    return step


def routed_model(step: Callable[[Request], Response], calls: int = 20) -> ScriptedModel:
    return ScriptedModel("test:judge", [step] * calls, capabilities=LOGPROB_CAPABILITIES)
