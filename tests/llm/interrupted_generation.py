"""`python interrupted_generation.py`: starts a generation on the small embedded model that
cannot end for a minute or more, prints "generating" once the runtime is on it, and on
Ctrl-C leaves the way the `jurist` commands do."""

import asyncio
import signal

from jurist.cli._exit import exit_interrupted
from jurist.llm import Request, generation_running, get_model

# A parent started in the background (nohup, `&` in a script) hands its children SIGINT
# ignored, and Python then never raises KeyboardInterrupt. This script stands for a
# command a user stops with Ctrl-C in a terminal, so it takes SIGINT back.
signal.signal(signal.SIGINT, signal.default_int_handler)

# The grammar holds the model to 1,500 numbers (the runtime refuses a grammar of more than
# 2,000 repetitions): thousands of tokens, no early stop.
LONG = {"type": "array", "items": {"type": "integer"}, "minItems": 1500}


async def main() -> None:
    model = get_model("local:smollm2-135m")
    request = Request.of("List numbers.", json_schema=LONG, max_tokens=7000)
    generation = asyncio.ensure_future(model.complete(request))
    # The runtime's worker thread sets the flag: there is no event in this loop to await.
    while not generation_running() and not generation.done():  # noqa: ASYNC110
        await asyncio.sleep(0.01)
    if generation.done():  # it failed or ended before it could be interrupted
        print(f"ended: {generation.exception() or 'too soon'}", flush=True)
        return
    print("generating", flush=True)
    await generation


if __name__ == "__main__":
    try:
        asyncio.run(main())
    except KeyboardInterrupt:
        exit_interrupted("interrupted")
