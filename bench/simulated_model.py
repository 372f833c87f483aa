"""A simulated judge model for benches: an OpenAI-compatible chat-completions server on
127.0.0.1 that answers every validation layer's request after a fixed latency, and records
each request's layer, arrival and answer time so a bench can derive the chain of dependent
calls from what the server actually received.

What each layer asks, told apart by the properties of the JSON schema it sends:

    answer   criteria: "yes", P(yes) = 0.9, with log-probabilities at the answer token
    claims   hallucination, extraction: the claims it was started with
    verdict  hallucination, verification: "supported", P(supported) = 0.9, and as the quote
             the sentence of the prompt's source material sharing most words with the claim
    score    quality: a sentence of reasoning, then 5, P(5) = 0.9 and the rest spread over
             the neighbouring values (4, 6, 3, 7) at the score token

Asked for log-probabilities, it answers as a hosted provider does: one entry per token of
the content, split roughly the way OpenAI's tokenisers split text (a word with its leading
space, runs of up to three digits, runs of punctuation, runs of spaces), each with as many
`top_logprobs` alternatives as were asked (the decision token's spread first, then unlikely
filler tokens). With `few_tokens=True` (`--few-tokens`) it answers in a handful of long
pieces instead: what its client reads per call is then much smaller.

It runs in a process of its own, so its CPU is not the measured client's:

    with SimulatedModel(latency_ms=200) as sim:
        validator = Validator(sim.spec, settings=Settings(JURIST_CACHE="0"))
        ...
        calls = sim.calls()          # every answered request, in answer order
        critical_path(calls)         # the longest chain of dependent calls

With `max_in_flight=K` it plays a provider of limited capacity: a request that arrives with
K in flight is answered 429 at once, with `Retry-After` (whole seconds) and `retry-after-ms`
(`retry_after_ms`); `sim.stats()` counts what it accepted and refused.

Standalone: .venv/bin/python bench/simulated_model.py [--latency-ms 200] [--port 0]
[--max-in-flight K] [--retry-after-ms MS] [--few-tokens] (prints the port it listens on,
then serves until interrupted).
"""

import argparse
import asyncio
import contextlib
import json
import math
import re
import subprocess
import sys
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx

DEFAULT_CLAIMS = (
    "The function sorts the list with Python's built-in sorted.",
    "sorted returns a new list.",
    "Sorting takes O(n log n) time.",
)
P_YES = 0.9
P_SUPPORTED = 0.9
SCORE = 5
STARTUP_S = 30.0

REASONING = "The answer states the facts of the source material and adds nothing it lacks."
# Unlikely alternatives after a token's own: real tokens, none of them (nor a prefix of
# them) a label a judge reads, at log-probabilities far below the chosen token's.
FILLERS = (
    " the", ",", " and", ".", " of", " to", " in", " is", " that", " it",
    " for", " on", " with", " as", " was", " be", " by", " this", " are", " from",
)  # fmt: skip
# Pieces as OpenAI's tokenisers roughly cut text: a word with one leading space or quote,
# digits in runs of at most three, punctuation runs (with a leading space), space runs.
_PIECE = re.compile(r"[ \"]?[A-Za-z_]+|\d{1,3}| ?[^\sA-Za-z\d_]+|\s+")

Token = tuple[str, Mapping[str, float]]  # the token and its top alternatives' probabilities


# -- answers -------------------------------------------------------------------------------


@dataclass(frozen=True)
class Answer:
    layer: str
    step: str
    tokens: tuple[Token, ...]

    @property
    def text(self) -> str:
        return "".join(token for token, _ in self.tokens)


def _plain(text: str) -> Token:
    return text, {text: 1.0}


def spelled(text: str) -> tuple[Token, ...]:
    """`text` cut into token-sized pieces, each certain."""
    pieces = _PIECE.findall(text)
    assert "".join(pieces) == text, f"the tokenisation lost text of {text!r}"
    return tuple(_plain(piece) for piece in pieces)


def score_spread(score: int) -> dict[str, float]:
    """P at the score token: most on `score`, the rest on its neighbours."""
    spread = {score: 0.9, score - 1: 0.06, score + 1: 0.025, score - 2: 0.01, score + 2: 0.005}
    return {str(value): p for value, p in spread.items() if value >= 0}


def _schema_properties(body: Mapping[str, Any]) -> Mapping[str, Any]:
    response_format = body.get("response_format") or {}
    schema = (response_format.get("json_schema") or {}).get("schema") or {}
    properties = schema.get("properties")
    if not isinstance(properties, Mapping):
        raise ValueError("response_format.json_schema.schema has no properties to answer")
    return properties


def _prompt(body: Mapping[str, Any]) -> str:
    return str(body["messages"][-1]["content"])


_SOURCE = re.compile(r"Source material:\n(`{3,})source\n(.*?)\n\1", re.DOTALL)
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+|\n+")
_WORD = re.compile(r"\w+")


def best_quote(prompt: str, claim: str) -> str:
    """The sentence of the prompt's source material that shares most words with the claim,
    copied as it is written there (so jurist's quote check finds it)."""
    found = _SOURCE.search(prompt)
    if found is None:
        return ""
    sentences = [s.strip() for s in _SENTENCE_END.split(found.group(2)) if s.strip()]
    wanted = set(_WORD.findall(claim.lower()))
    return max(sentences, key=lambda s: len(wanted & set(_WORD.findall(s.lower()))), default="")


def answer(body: Mapping[str, Any], claims: Sequence[str], *, few_tokens: bool = False) -> Answer:
    """The answer to one chat-completions request, by what its schema asks for: token-sized
    pieces, or with `few_tokens` a handful of long ones."""
    found = _answer(body, claims)
    if few_tokens:
        return found
    tokens: list[Token] = []
    for token, top in found.tokens:
        # Long certain pieces are cut up; a decision token (its spread) stays one token.
        tokens.extend(spelled(token) if len(top) == 1 else ((token, top),))
    return Answer(found.layer, found.step, tuple(tokens))


def _answer(body: Mapping[str, Any], claims: Sequence[str]) -> Answer:
    properties = _schema_properties(body)
    prompt = _prompt(body)
    if "claims" in properties:
        most = properties["claims"].get("maxItems", len(claims))
        found = {"claims": list(claims)[:most]}
        return Answer("hallucination", "claims", (_plain(json.dumps(found)),))
    if "verdicts" in properties:  # every claim checked in one call
        schema = properties["verdicts"]
        count = schema.get("maxItems") or schema.get("minItems") or 1
        verdicts = [{"claim": i, "verdict": "supported", "quote": ""} for i in range(1, count + 1)]
        text = json.dumps({"verdicts": verdicts})
        return Answer("hallucination", "verify", (_plain(text),))
    if "verdict" in properties:
        claim = prompt.rstrip().rsplit("Claim: ", 1)[1]
        rest = (1.0 - P_SUPPORTED) / 2
        verdict = (
            "supported",
            {"supported": P_SUPPORTED, "contradicted": rest, "not_mentioned": rest},
        )
        tail = f'", "quote": {json.dumps(best_quote(prompt, claim))}}}'
        return Answer("hallucination", "verify", (_plain('{"verdict": "'), verdict, _plain(tail)))
    if "answer" in properties:
        said = ("yes", {"yes": P_YES, "no": 1.0 - P_YES})
        reason = f'", "reason": {json.dumps(REASONING)}}}'
        tokens = (_plain('{"answer": "'), said, _plain(reason))
        return Answer("criteria", "criterion", tokens)
    if "score" in properties:
        tail = ', "confidence": 0.9}' if "confidence" in properties else "}"
        tokens = (
            _plain(f'{{"reasoning": {json.dumps(REASONING)}, "score": '),
            (str(SCORE), score_spread(SCORE)),
            _plain(tail),
        )
        return Answer("quality", "criterion", tokens)
    raise ValueError(f"no simulated answer for a schema with properties {sorted(properties)}")


def completion(
    body: Mapping[str, Any], found: Answer, *, few_tokens: bool = False
) -> dict[str, Any]:
    """`found` as a chat completion, with log-probabilities when the request asked (with
    `few_tokens`, each token's alternatives are its spread alone, however many were asked)."""
    choice: dict[str, Any] = {
        "index": 0,
        "message": {"role": "assistant", "content": found.text, "refusal": None},
        "finish_reason": "stop",
        "logprobs": None,
    }
    if body.get("logprobs"):
        asked = int(body.get("top_logprobs") or 0)
        choice["logprobs"] = {
            "content": [
                {
                    "token": token,
                    "logprob": math.log(top.get(token, 1e-9)),
                    "bytes": list(token.encode()),
                    "top_logprobs": alternatives(top, None if few_tokens else asked),
                }
                for token, top in found.tokens
            ],
            "refusal": None,
        }
    return {
        "id": "chatcmpl-simulated",
        "object": "chat.completion",
        "created": int(time.time()),
        "model": body.get("model", "sim"),
        "choices": [choice],
        "usage": {
            "prompt_tokens": len(_prompt(body)) // 4,
            "completion_tokens": len(found.tokens),
            "total_tokens": len(_prompt(body)) // 4 + len(found.tokens),
        },
    }


def alternatives(top: Mapping[str, float], asked: int | None) -> list[dict[str, Any]]:
    """`asked` alternatives at one token, most likely first: its spread, then fillers (None:
    its spread alone, in the order it was written)."""
    if asked is None:
        chosen = list(top.items())
    else:
        ranked = sorted(top.items(), key=lambda item: -item[1])
        fillers = [(f, math.exp(-16.0 - i)) for i, f in enumerate(FILLERS) if f not in top]
        chosen = (ranked + fillers)[:asked]
    return [{"token": t, "logprob": math.log(p), "bytes": list(t.encode())} for t, p in chosen]


# -- the server (its own process) ----------------------------------------------------------


async def _serve(
    latency_s: float,
    port: int,
    claims: Sequence[str],
    max_in_flight: int = 0,
    retry_after_ms: float = 1000.0,
    *,
    few_tokens: bool = False,
) -> None:
    from aiohttp import web

    answered: list[dict[str, Any]] = []
    load = {"in_flight": 0, "max_in_flight": 0, "refused": 0}

    def refuse() -> web.Response:
        # As a provider over its capacity answers: 429, with how long to wait both ways
        # (Retry-After in whole seconds, as HTTP has it; retry-after-ms as OpenAI sends).
        load["refused"] += 1
        headers = {
            "Retry-After": str(max(1, math.ceil(retry_after_ms / 1000))),
            "retry-after-ms": f"{retry_after_ms:g}",
        }
        error = {
            "message": f"simulated model: more than {max_in_flight} requests in flight",
            "type": "rate_limit_exceeded",
        }
        return web.json_response({"error": error}, status=429, headers=headers)

    async def complete(request: web.Request) -> web.Response:
        if max_in_flight and load["in_flight"] >= max_in_flight:
            await request.read()
            return refuse()
        load["in_flight"] += 1
        load["max_in_flight"] = max(load["max_in_flight"], load["in_flight"])
        try:
            return await _answer(request)
        finally:
            load["in_flight"] -= 1

    async def _answer(request: web.Request) -> web.Response:
        arrived = time.monotonic()
        body = await request.json()
        try:
            found = answer(body, claims, few_tokens=few_tokens)
        except (ValueError, KeyError, IndexError, TypeError) as exc:
            error = {"message": f"simulated model: {exc}", "type": "invalid_request_error"}
            return web.json_response({"error": error}, status=400)
        await asyncio.sleep(latency_s)
        payload = completion(body, found, few_tokens=few_tokens)
        answered.append(
            {
                "layer": found.layer,
                "step": found.step,
                "arrived": arrived,
                "answered": time.monotonic(),
            }
        )
        return web.json_response(payload)

    async def calls(request: web.Request) -> web.Response:
        since = int(request.query.get("since", "0"))
        return web.json_response(answered[since:])

    async def stats(request: web.Request) -> web.Response:
        return web.json_response({**load, "answered": len(answered)})

    app = web.Application()
    app.router.add_post("/v1/chat/completions", complete)
    app.router.add_get("/calls", calls)
    app.router.add_get("/stats", stats)
    runner = web.AppRunner(app, access_log=None)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", port, backlog=1024)
    await site.start()
    print(runner.addresses[0][1], flush=True)
    await asyncio.Event().wait()


# -- the bench's handle on it --------------------------------------------------------------


@dataclass(frozen=True)
class Call:
    """One answered request, as the simulated server saw it (its monotonic clock)."""

    layer: str
    step: str
    arrived: float
    answered: float

    @property
    def held_ms(self) -> float:
        return (self.answered - self.arrived) * 1000


@dataclass(frozen=True)
class Chain:
    """The longest chain of dependent calls of one layer: `rounds` calls, each sent only
    after the one before it was answered, holding the model `ms` in all."""

    layer: str
    calls: int
    rounds: int
    ms: float


def layer_chain(layer: str, calls: Sequence[Call]) -> Chain:
    """A call depends on an earlier one of its layer when it arrived after that one was
    answered; the chain is the longest path through those dependencies, by model time."""
    ordered = sorted(calls, key=lambda c: c.arrived)
    best: list[tuple[float, int]] = []
    for call in ordered:
        before = [
            best[j]
            for j, prior in enumerate(ordered[: len(best)])
            if prior.answered <= call.arrived
        ]
        ms, rounds = max(before, default=(0.0, 0))
        best.append((ms + call.held_ms, rounds + 1))
    ms, rounds = max(best, default=(0.0, 0))
    return Chain(layer, len(ordered), rounds, ms)


def chains(calls: Sequence[Call]) -> dict[str, Chain]:
    layers = sorted({call.layer for call in calls})
    return {layer: layer_chain(layer, [c for c in calls if c.layer == layer]) for layer in layers}


def critical_path(calls: Sequence[Call]) -> Chain:
    """The longest chain over all layers (layers run concurrently, so no call depends on
    another layer's)."""
    return max(chains(calls).values(), key=lambda chain: chain.ms, default=Chain("-", 0, 0, 0.0))


class SimulatedModel:
    """The simulated server as a subprocess: `with SimulatedModel(200) as sim: sim.spec`."""

    def __init__(
        self,
        latency_ms: float,
        claims: Sequence[str] = DEFAULT_CLAIMS,
        *,
        max_in_flight: int = 0,
        retry_after_ms: float = 1000.0,
        few_tokens: bool = False,
    ) -> None:
        self.latency_ms = latency_ms
        self.few_tokens = few_tokens
        self.claims = tuple(claims)
        self.max_in_flight = max_in_flight
        self.retry_after_ms = retry_after_ms
        self.port = 0
        self._process: subprocess.Popen[str] | None = None
        self._client: httpx.Client | None = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    @property
    def spec(self) -> str:
        return f"openai-compatible:sim@{self.url}"

    def __enter__(self) -> "SimulatedModel":
        command = [
            sys.executable,
            str(Path(__file__).resolve()),
            "--latency-ms",
            str(self.latency_ms),
            "--claims",
            json.dumps(list(self.claims)),
            "--max-in-flight",
            str(self.max_in_flight),
            "--retry-after-ms",
            str(self.retry_after_ms),
            *(["--few-tokens"] if self.few_tokens else []),
        ]
        self._process = subprocess.Popen(command, stdout=subprocess.PIPE, text=True)
        assert self._process.stdout is not None
        line = self._process.stdout.readline().strip()
        if not line.isdigit():
            self.__exit__()
            raise RuntimeError(f"the simulated model did not start (it said {line!r})")
        self.port = int(line)
        self._client = httpx.Client(base_url=f"http://127.0.0.1:{self.port}", timeout=STARTUP_S)
        return self

    def __exit__(self, *exc: object) -> None:
        if self._client is not None:
            self._client.close()
        if self._process is not None:
            self._process.terminate()
            self._process.wait(STARTUP_S)
            if self._process.stdout is not None:
                self._process.stdout.close()

    def calls(self, since: int = 0) -> list[Call]:
        """The requests answered so far, from the `since`-th on, in answer order."""
        assert self._client is not None, "use SimulatedModel as a context manager"
        response = self._client.get("/calls", params={"since": since})
        response.raise_for_status()
        return [Call(**item) for item in response.json()]

    def count(self) -> int:
        return len(self.calls())

    def stats(self) -> dict[str, int]:
        """The requests in flight now and at most (of those accepted), the requests refused
        with 429 for being over `max_in_flight`, and the requests answered."""
        assert self._client is not None, "use SimulatedModel as a context manager"
        response = self._client.get("/stats")
        response.raise_for_status()
        return dict(response.json())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--latency-ms", type=float, default=200.0)
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--claims", default=json.dumps(list(DEFAULT_CLAIMS)), help="a JSON list")
    parser.add_argument(
        "--max-in-flight",
        type=int,
        default=0,
        help="answer 429 to a request that arrives with this many in flight (0: never)",
    )
    parser.add_argument(
        "--retry-after-ms", type=float, default=1000.0, help="the wait a 429 asks for"
    )
    parser.add_argument(
        "--few-tokens",
        action="store_true",
        help="answer in a handful of long tokens rather than token-sized pieces",
    )
    args = parser.parse_args()
    claims = json.loads(args.claims)
    if not isinstance(claims, list) or not all(isinstance(c, str) for c in claims):
        parser.error(f"--claims: expected a JSON list of strings, got {args.claims!r}")
    with contextlib.suppress(KeyboardInterrupt):
        serving = _serve(
            args.latency_ms / 1000,
            args.port,
            claims,
            args.max_in_flight,
            args.retry_after_ms,
            few_tokens=args.few_tokens,
        )
        asyncio.run(serving)


if __name__ == "__main__":
    main()
