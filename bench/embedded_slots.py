"""Parallel decoding slots of the embedded runtime: do several sequences at once pay on two cores?

The runtime can decode several sequences in one batch (`n_parallel` slots). This bench asks
the default model the same kind of question a claim check asks (a ~300-token source, a
claim, a JSON answer with the verdict and a copied quote, about 40 tokens decoded) about
`--claims` claims, one at a time with one slot, then from as many threads as there are slots
with `--slots` slots. Every slot is warmed with the source first, so the figure is the best
case for the slots (a real item would also pay the source's prompt once per slot, since each
slot keeps its own prompt cache). Printed: seconds per call, and each call's prompt tokens
evaluated, taken from the prompt cache, and decoded.

Run: flock /tmp/jurist-model.lock uv run python bench/embedded_slots.py [--slots 4]
     [--claims 16]
"""

import argparse
import concurrent.futures
import json
import time
from pathlib import Path
from typing import Any

import xllamacpp

from jurist.llm._catalog import CATALOG
from jurist.llm._weights import prepare_weights
from jurist.settings import get_settings

ARTICLE = Path(__file__).parents[1] / "examples" / "article.txt"
CLAIMS = [
    "The council voted 7 to 2.",
    "The library opens in 2027.",
    "The project costs 4 million dollars.",
    "Ana Ruiz is the mayor.",
    "Construction starts in March.",
    "The site was a train station.",
    "The roads will be repaired first.",
    "The library has a makerspace.",
]
SCHEMA = {
    "type": "object",
    "properties": {
        "verdict": {"enum": ["supported", "contradicted", "not_mentioned"]},
        "quote": {"type": "string", "maxLength": 300},
    },
    "required": ["verdict", "quote"],
}


def server(path: Path, slots: int) -> Any:
    params = xllamacpp.CommonParams()
    params.model.path = str(path)
    params.n_ctx = 4096 * slots
    params.n_parallel = slots
    params.kv_unified = True
    params.cpuparams.n_threads = 2
    params.cpuparams_batch.n_threads = 2
    params.warmup = False
    params.verbosity = 0
    return xllamacpp.Server(params)


def asker(runtime: Any, source: str) -> Any:
    def ask(claim: str) -> tuple[int, int, int]:
        request = {
            "messages": [
                {"role": "system", "content": "You are a careful evaluator."},
                {
                    "role": "user",
                    "content": f"Source:\n{source}\n\nIs the claim supported by the source? "
                    f"Answer with the verdict and the sentence of the source it rests on. "
                    f"Claim: {claim}",
                },
            ],
            "max_tokens": 90,
            "temperature": 0,
            "response_format": {
                "type": "json_schema",
                "json_schema": {"name": "verdict", "schema": SCHEMA},
            },
        }
        timings = runtime.handle_chat_completions(request).get("timings", {})
        return (timings.get("prompt_n"), timings.get("cache_n"), timings.get("predicted_n"))

    return ask


def measure(path: Path, slots: int, claims: list[str], source: str) -> None:
    ask = asker(server(path, slots), source)
    with concurrent.futures.ThreadPoolExecutor(slots) as pool:
        list(pool.map(ask, ["warm"] * slots))
        started = time.perf_counter()
        found = list(pool.map(ask, claims))
    seconds = time.perf_counter() - started
    print(
        f"slots={slots}: {seconds:.1f} s for {len(claims)} calls, "
        f"{seconds / len(claims):.2f} s a call; (evaluated, cached, decoded) tokens: "
        f"{json.dumps(found)}"
    )


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--slots", type=int, default=4)
    parser.add_argument("--claims", type=int, default=16)
    args = parser.parse_args()
    path = prepare_weights(CATALOG["qwen2.5-1.5b"], get_settings().models_dir)
    source = ARTICLE.read_text() * 3
    claims = [CLAIMS[i % len(CLAIMS)] for i in range(args.claims)]
    for slots in (1, args.slots):
        measure(path, slots, claims, source)


if __name__ == "__main__":
    main()
