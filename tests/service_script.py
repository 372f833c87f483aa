"""A scripted model that answers whatever the validation layers ask: criteria (P(yes)),
claims, claim verdicts (P(supported) and a quote) and rubric scores (a 1-5 distribution),
each looked up by what the prompt asks about."""

import json
from collections.abc import Mapping
from dataclasses import dataclass, field

from jurist.llm import Request, Response
from scripted import LOGPROB_CAPABILITIES, ScriptedModel, answer, with_logprobs


def _properties(request: Request) -> Mapping[str, object]:
    schema = request.json_schema or {}
    properties = schema.get("properties", {})
    return properties if isinstance(properties, Mapping) else {}


def _criterion_verdict(p_yes: float) -> Response:
    said = "yes" if p_yes >= 0.5 else "no"
    return with_logprobs(
        '{"answer": "', (said, {"yes": p_yes, "no": 1 - p_yes}), '", "reason": "scripted"}'
    )


def _claim_verdict(p_supported: float, quote: str) -> Response:
    rest = (1.0 - p_supported) / 2
    said = "supported" if p_supported >= 0.5 else "not_mentioned"
    return with_logprobs(
        '{"verdict": "',
        (said, {"supported": p_supported, "contradicted": rest, "not_mentioned": rest}),
        f'", "quote": {json.dumps(quote)}}}',
    )


def _score(score: int) -> Response:
    distribution = {str(s): (0.9 if s == score else 0.025) for s in range(1, 6)}
    reasoning = f"scripted reasoning for {score}"
    return with_logprobs(
        json.dumps({"reasoning": reasoning})[:-1] + ', "score": ',
        (str(score), distribution),
        "}",
        json={"reasoning": reasoning, "score": score},
    )


@dataclass
class ServiceScript:
    """P(yes) per criterion, the output's claims, (P(supported), quote) per claim, and a
    1-5 score per rubric criterion name."""

    criteria: dict[str, float] = field(default_factory=dict)
    claims: list[str] = field(default_factory=list)
    support: dict[str, tuple[float, str]] = field(default_factory=dict)
    quality: dict[str, int] = field(default_factory=dict)
    fail_with: Exception | None = None
    lenient: bool = False  # answer what the tables lack (P = 0.5, score 3) instead of failing

    def __call__(self, request: Request) -> Response:
        if self.fail_with is not None:
            raise self.fail_with
        properties = _properties(request)
        prompt = request.messages[-1].content
        if "claims" in properties:
            return answer(json.dumps({"claims": self.claims}))
        if "verdict" in properties:
            claim = prompt.rstrip().rsplit("Claim: ", 1)[-1]
            if self.lenient and claim not in self.support:
                return _claim_verdict(0.5, "")
            return _claim_verdict(*self.support[claim])
        if "answer" in properties:
            criterion = prompt.rstrip().rsplit("Criterion: ", 1)[-1]
            if self.lenient and criterion not in self.criteria:
                return _criterion_verdict(0.5)
            return _criterion_verdict(self.criteria[criterion])
        if "score" in properties:
            names = [n for n in self.quality if f"criterion only: {n}." in prompt]
            if self.lenient and not names:
                return _score(3)
            return _score(self.quality[names[0]])
        if self.lenient:
            return answer("{}")
        raise AssertionError(f"the script has no answer for: {prompt[-300:]}")


def scripted_model(script: ServiceScript, calls: int = 5000) -> ScriptedModel:
    return ScriptedModel("test:judge", [script] * calls, capabilities=LOGPROB_CAPABILITIES)
