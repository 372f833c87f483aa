"""Sentences per second of the embedded MiniLM embedder, per thread count.

The "sentences" are consecutive 20-word pieces of the SummEval articles and summaries (news
prose), taken in order until there are enough. Each setting loads its own embedder, embeds
the set once to warm up, then times `--repeats` runs; it reports the best and the median.

Run: uv run python bench/embeddings.py [--sentences 500] [--threads 1,2] [--batch-size 32]
"""

import argparse
import asyncio
import json
import statistics
import time

from jurist.data import summeval_100_path
from jurist.llm import MiniLMEmbedder

DATA = summeval_100_path()  # the calibration set shipped in the package


def sentences(count: int, words: int = 20) -> list[str]:
    found: dict[str, None] = {}
    for line in DATA.read_text().splitlines():
        row = json.loads(line)
        tokens = f"{row['source']} {row['output']}".split()
        for start in range(0, len(tokens) - words + 1, words):
            found[" ".join(tokens[start : start + words])] = None
            if len(found) == count:
                return list(found)
    raise SystemExit(f"only {len(found)} pieces of {words} words in {DATA}")


async def bench(texts: list[str], threads: int, batch_size: int, repeats: int) -> None:
    embedder = MiniLMEmbedder(threads=threads, batch_size=batch_size)
    started = time.perf_counter()
    await embedder.load()
    load_s = time.perf_counter() - started
    await embedder.embed(texts)
    times = []
    for _ in range(repeats):
        started = time.perf_counter()
        await embedder.embed(texts)
        times.append(time.perf_counter() - started)
    best, median = min(times), statistics.median(times)
    print(
        f"{threads:>7}{batch_size:>7}{load_s:>9.2f}{len(texts) / best:>14.0f}"
        f"{len(texts) / median:>16.0f}"
    )


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sentences", type=int, default=500)
    parser.add_argument("--threads", default="1,2")
    parser.add_argument("--batch-size", type=int, default=32)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    texts = sentences(args.sentences)
    words = statistics.mean(len(text.split()) for text in texts)
    print(f"{len(texts)} sentences, {words:.1f} words on average")
    print(f"{'threads':>7}{'batch':>7}{'load s':>9}{'best sent/s':>14}{'median sent/s':>16}")
    for threads in (int(t) for t in args.threads.split(",")):
        await bench(texts, threads, args.batch_size, args.repeats)


if __name__ == "__main__":
    asyncio.run(main())
