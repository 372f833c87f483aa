"""What jurist's HTTP model layer costs on top of the model: N calls at concurrency C to a
simulated OpenAI-compatible endpoint that answers after a fixed latency.

The endpoint runs in a separate process, so the client CPU measured here is jurist's, the
SDK's and the event loop's alone. Targets: wall <= 1.1 x ideal (N x latency / C) and
<= 2.5 ms of client CPU per call.

Run: .venv/bin/python bench/llm_overhead.py [--n 1000] [--concurrency 64] [--latency-ms 200]
"""

import argparse
import asyncio
import cProfile
import json
import multiprocessing
import multiprocessing.connection
import pstats
import tempfile
import time

from jurist.llm import Model, Request, Response, get_model
from jurist.llm._limits import ConcurrencyLimited
from jurist.llm._openai import OpenAIModel
from jurist.llm._retry import Retrying
from jurist.settings import Settings

COMPLETION = json.dumps(
    {
        "id": "chatcmpl-bench",
        "object": "chat.completion",
        "created": 1700000000,
        "model": "bench",
        "choices": [
            {
                "index": 0,
                "message": {"role": "assistant", "content": '{"verdict": "pass", "score": 1}'},
                "finish_reason": "stop",
            }
        ],
        "usage": {"prompt_tokens": 120, "completion_tokens": 9, "total_tokens": 129},
    }
).encode()


def serve(latency_s: float, ready: multiprocessing.connection.Connection) -> None:
    """The simulated endpoint (in its own process): every answer after `latency_s`."""
    from aiohttp import web

    async def complete(request: web.Request) -> web.Response:
        await request.read()
        await asyncio.sleep(latency_s)
        return web.Response(body=COMPLETION, content_type="application/json")

    async def main() -> None:
        app = web.Application()
        app.router.add_post("/v1/chat/completions", complete)
        runner = web.AppRunner(app, access_log=None)
        await runner.setup()
        site = web.TCPSite(runner, "127.0.0.1", 0, backlog=4096)
        await site.start()
        ready.send(runner.addresses[0][1])
        await asyncio.Event().wait()

    asyncio.run(main())


async def measure(label: str, model: Model, args: argparse.Namespace, semaphore: bool) -> None:
    request = Request.of(
        "Is the answer grounded in the context? Answer with JSON.",
        system="You are a strict judge.",
        json_schema={"type": "object", "properties": {"verdict": {"type": "string"}}},
        timeout_s=30.0,
    )
    # Warm up (the client, the platform probe, C pooled connections): steady state is measured.
    await asyncio.gather(*(model.complete(request) for _ in range(args.concurrency)))
    limit = asyncio.Semaphore(args.concurrency)

    async def one() -> Response:
        if not semaphore:
            return await model.complete(request)
        async with limit:
            return await model.complete(request)

    profiler = cProfile.Profile() if args.profile else None
    cpu, wall = time.process_time(), time.perf_counter()
    if profiler:
        profiler.enable()
    await asyncio.gather(*(one() for _ in range(args.n)))
    if profiler:
        profiler.disable()
    cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
    ideal = args.n * args.latency_ms / 1000 / args.concurrency
    print(
        f"{label:<44} {wall:>7.2f} s {ideal:>7.2f} s {wall / ideal:>6.2f}x "
        f"{cpu / args.n * 1000:>8.2f} ms"
    )
    if profiler:
        pstats.Stats(profiler).sort_stats(args.sort).print_stats(40)


async def main(args: argparse.Namespace, port: int) -> None:
    url = f"http://127.0.0.1:{port}/v1"
    print(
        f"N={args.n} C={args.concurrency} latency={args.latency_ms:g} ms\n"
        f"{'':<44} {'wall':>9} {'ideal':>9} {'ratio':>7} {'CPU/call':>11}"
    )
    plain = OpenAIModel("bench", base_url=url)
    await measure("OpenAIModel, asyncio.Semaphore", plain, args, semaphore=True)
    layered = Retrying(
        ConcurrencyLimited(OpenAIModel("bench", base_url=url), max_concurrency=args.concurrency)
    )
    await measure("Retrying(ConcurrencyLimited(OpenAIModel))", layered, args, semaphore=False)
    with tempfile.TemporaryDirectory() as home:
        settings = Settings(JURIST_HOME=home, JURIST_MAX_CONCURRENCY=str(args.concurrency))
        stack = get_model(f"openai-compatible:bench@{url}", settings=settings, cache=False)
        await measure("get_model(...), the default stack, no cache", stack, args, semaphore=False)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=1000)
    parser.add_argument("--concurrency", type=int, default=64)
    parser.add_argument("--latency-ms", type=float, default=200.0)
    parser.add_argument("--profile", action="store_true", help="print a cProfile of each run")
    parser.add_argument("--sort", default="cumulative", help="the cProfile sort key")
    arguments = parser.parse_args()
    receive, send = multiprocessing.Pipe(duplex=False)
    server = multiprocessing.get_context("spawn").Process(
        target=serve, args=(arguments.latency_ms / 1000, send), daemon=True
    )
    server.start()
    try:
        asyncio.run(main(arguments, receive.recv()))
    finally:
        server.terminate()
        server.join()
