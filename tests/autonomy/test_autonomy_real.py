"""The autonomous judge system through the real embedded runtime, as a user runs it: the
`jurist` command in a subprocess, on SmolLM2 (fast; it cannot judge, so this is plumbing,
not quality). A whole improvement cycle runs and every stage's message is stored and
replayable; a tournament ranks variants and records their reputations."""

import json
import os
import subprocess
import sys
from pathlib import Path

from jurist.settings import Settings

SMALL = "local:smollm2-135m"


def jurist(*args: str, home: Path) -> subprocess.CompletedProcess[str]:
    environment = {
        **os.environ,
        "JURIST_HOME": str(home),
        "JURIST_MODELS_DIR": str(Settings().models_dir),
        "JURIST_MODEL": SMALL,
    }
    command = [sys.executable, "-m", "jurist.cli", *args]
    return subprocess.run(command, env=environment, capture_output=True, text=True, check=False)


def test_a_whole_improvement_cycle_runs_and_every_stage_is_stored(tmp_path: Path):
    prompt = tmp_path / "prompt.txt"
    prompt.write_text("Summarise the text in one short sentence.\n")
    cases = tmp_path / "cases.jsonl"
    cases.write_text(
        "\n".join(
            json.dumps({"id": name, "input": text})
            for name, text in [
                ("bridge", "The bridge closes for 14 weeks of repairs from Monday."),
                ("library", "The library opens on Sundays from March, 10 am to 4 pm."),
            ]
        )
    )
    database = f"sqlite:///{tmp_path / 'cycles.sqlite3'}"
    run = jurist(
        "improve", "--prompt", str(prompt), "--cases", str(cases),
        "--criterion", "short=The response is one short sentence",
        "--max-iterations", "1", "--breakpoint", "none", "--max-tokens", "50000",
        "--name", "real", "--database", database, "--json",
        home=tmp_path,
    )  # fmt: skip
    assert run.returncode in (0, 1), run.stderr  # kept an improvement, or not: both end well
    outcome = json.loads(run.stdout)
    assert outcome["status"] in {"accepted", "rejected", "halted"}
    assert outcome["baseline_score"] is not None
    assert outcome["usage"]["calls"] > 0
    assert outcome["usage"]["output_tokens"] > 0

    shown = jurist("cycles", "show", "real", "--database", database, "--json", home=tmp_path)
    assert shown.returncode == 0, shown.stderr
    events = json.loads(shown.stdout)["events"]
    kinds = [event["kind"] for event in events]
    assert kinds[0] == "outputs"  # the baseline answers come first
    for request in ("request:evaluate", "request:analyze"):
        assert request in kinds
    # Every request to a role has its reply, or the failure that stopped it, right after.
    for index, kind in enumerate(kinds):
        if kind.startswith("request:"):
            answered = kinds[index + 1].split(":", 1)
            assert answered[0] in {"reply", "failure", "rejected"}, kinds
            assert answered[1] == kind.split(":", 1)[1]
    # What the cycle says it spent is what its stored messages add up to.
    assert sum(event["output_tokens"] for event in events) == outcome["usage"]["output_tokens"]


def test_a_tournament_ranks_variants_and_records_their_reputations(tmp_path: Path):
    labelled = tmp_path / "labelled.jsonl"
    rows = [
        ("a", "Thank you so much for your patience, I am happy to help.", True),
        ("b", "Read the manual yourself.", False),
        ("c", "Please let me know if there is anything else I can do.", True),
        ("d", "Stop asking me that.", False),
    ]
    labelled.write_text(
        "\n".join(
            json.dumps({"id": key, "context": "", "output": text, "label": label})
            for key, text, label in rows
        )
    )
    database = f"sqlite:///{tmp_path / 'store.sqlite3'}"
    run = jurist(
        "tournament", "--criterion", "The answer is polite", "--variants-n", "2",
        "--ground-truth", str(labelled), "--samples", "1", "--concurrency", "1",
        "--save", str(tmp_path / "winners"), "--database", database, "--json",
        home=tmp_path,
    )  # fmt: skip
    assert run.returncode == 0, run.stderr
    result = json.loads(run.stdout)
    ranked = result["rows"]
    assert [row["rank"] for row in ranked] == [1, 2]
    assert {row["variant"]["id"] for row in ranked} == {"plain", "reason_first"}
    assert all(row["judged"] + row["errors"] == len(rows) for row in ranked)
    assert list((tmp_path / "winners").glob("*.judge.yaml"))

    listed = jurist("reputation", "list", "--database", database, "--json", home=tmp_path)
    assert listed.returncode == 0, listed.stderr
    judges = {row["judge_id"] for row in json.loads(listed.stdout)}
    assert judges == {"variant:plain", "variant:reason_first"}
