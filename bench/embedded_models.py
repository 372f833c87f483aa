"""The embedded models on this machine: load time, seconds per judge-sized request, tokens/s.

A judge-sized request is a SummEval article and summary (about 500 prompt tokens) and a JSON
verdict. Requests 1 and 2 judge two summaries of one article, so the second reuses the
runtime's prompt cache for the shared article; request 3 is a different article.

Run: uv run python bench/embedded_models.py [--models qwen2.5-1.5b,qwen2.5-0.5b,smollm2-135m]
"""

import argparse
import asyncio
import json
import time
from pathlib import Path
from string import Template

from jurist.data import summeval_100_path
from jurist.llm import Request
from jurist.llm._catalog import CATALOG
from jurist.llm._embedded import EmbeddedModel
from jurist.llm._weights import prepare_weights
from jurist.settings import get_settings

DATA = summeval_100_path()  # the calibration set shipped in the package
PROMPT = Template((Path(__file__).parent / "prompts" / "consistency.txt").read_text())
VERDICT = {
    "type": "object",
    "properties": {"verdict": {"enum": ["yes", "no"]}, "reason": {"type": "string"}},
    "required": ["verdict", "reason"],
}


def items() -> list[dict[str, str]]:
    rows = [json.loads(line) for line in DATA.read_text().splitlines()]
    first, second = (
        rows[0],
        next(r for r in rows if r["doc_id"] == rows[0]["doc_id"] and r != rows[0]),
    )
    other = next(r for r in rows if r["doc_id"] != rows[0]["doc_id"])
    return [first, second, other]


async def bench(name: str) -> None:
    known = CATALOG[name]
    started = time.perf_counter()
    path = prepare_weights(known, get_settings().models_dir)
    verify_s = time.perf_counter() - started
    model = EmbeddedModel(known.spec, path)
    await model.load()
    print(f"\n{known.spec}: verify {verify_s:.1f} s, load {model.load_seconds:.1f} s")
    print(
        f"  {'request':<28}{'seconds':>8}{'prompt tok':>11}{'output tok':>11}{'output tok/s':>13}"
    )
    for index, item in enumerate(items(), start=1):
        request = Request.of(
            PROMPT.substitute(source=item["source"], output=item["output"]),
            json_schema=VERDICT,
            logprobs=True,
            top_logprobs=5,
            max_tokens=80,
        )
        started = time.perf_counter()
        response = await model.complete(request)
        seconds = time.perf_counter() - started
        usage = response.usage
        label = f"{index}. {item['id']}"
        print(
            f"  {label:<28}{seconds:>8.2f}{usage.input_tokens:>11}{usage.output_tokens:>11}"
            f"{usage.output_tokens / seconds:>13.1f}"
        )


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--models", default=",".join(CATALOG))
    for name in parser.parse_args().models.split(","):
        await bench(name.strip())


if __name__ == "__main__":
    asyncio.run(main())
