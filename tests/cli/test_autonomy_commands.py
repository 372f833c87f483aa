"""`jurist improve`, `cycles`, `tournament` and `reputation` with scripted models: exit codes
for each way a cycle ends, bad input named by its flag, a paused cycle approved and resumed,
a cycle replayed from the store, and a tournament's reputations recorded."""

import asyncio
import json
import re

import pytest
from typer.testing import CliRunner

from jurist.autonomy import ReputationMetrics, reputation_score
from jurist.cli import app
from jurist.cli._cycles import event_gist
from jurist.cli._improve import criterion_specs
from jurist.cli._inputs import BadInput
from jurist.llm import ErrorKind, ModelError, Request, Response
from jurist.settings import get_settings
from jurist.store import RecordStore, StoredRun
from scripted import LOGPROB_CAPABILITIES, ScriptedModel, answer, with_logprobs

runner = CliRunner()

INITIAL = "You answer questions."
IMPROVED = "You answer questions, briefly."  # within the rewriter's length bound (1.5x)
GOOD, POOR = "answer: fine", "answer: poor"
CRITERION = "The answer is fine"


def verdict(p_yes: float) -> Response:
    said = "yes" if p_yes >= 0.5 else "no"
    return with_logprobs(
        '{"answer": "', (said, {"yes": p_yes, "no": 1 - p_yes}), '", "reason": "scripted"}'
    )


def json_answer(value: dict) -> Response:
    return answer(json.dumps(value))


class CycleModels:
    """One scripted model for the model under test and every role, answering by what is
    asked: the model under test answers well only under the improved prompt (when
    `improves`), the evaluator gives P(yes) 0.9 to a good answer and 0.2 to a poor one,
    and the other roles answer as a cooperative panel. `specs` lists the specs asked for."""

    def __init__(self, *, improves: bool = True, judging_fails: bool = False) -> None:
        self.improves = improves
        self.judging_fails = judging_fails
        self.specs: list[str | None] = []
        self.model = ScriptedModel(
            "test:cycle", [self.answer] * 400, capabilities=LOGPROB_CAPABILITIES
        )

    def get_model(self, spec: str | None = None) -> ScriptedModel:
        self.specs.append(spec)
        return self.model

    def answer(self, request: Request) -> Response:
        system = request.messages[0].content if len(request.messages) > 1 else ""
        if system in (INITIAL, IMPROVED):  # the model under test
            return answer(GOOD if self.improves and system == IMPROVED else POOR)
        fields = (request.json_schema or {}).get("properties", {})
        if "failure_type" in fields:
            return json_answer(
                {
                    "failure_type": "vague",
                    "root_cause": "The prompt asks for nothing in particular",
                    "hypotheses": ["Ambiguous instructions"],
                    "suggestions": ["Ask for brevity"],
                }
            )
        if "improved_prompt" in fields:
            return json_answer(
                {
                    "improved_prompt": IMPROVED,
                    "techniques_used": ["explicit_instruction"],
                    "rationale": "says what is wanted",
                    "intent_preserved": True,
                }
            )
        if "findings" in fields:
            return json_answer(
                {
                    "findings": [
                        {"kind": "edge_case", "description": "empty input", "severity": "low"}
                    ]
                }
            )
        if "decision" in fields:
            return json_answer({"decision": "continue", "reason": "the score rises"})
        if self.judging_fails:
            raise ModelError(ErrorKind.SERVER_ERROR, "scripted outage", model="test:cycle")
        return verdict(0.9 if GOOD in request.messages[-1].content else 0.2)


@pytest.fixture
def cycle_models(monkeypatch):
    """`install(**options)` makes every model the loop asks for a `CycleModels` panel."""

    # The commands check a provider's configuration before any work: these tests name
    # OpenAI models, which the panel stands in for, so the key only has to be set.
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    get_settings.cache_clear()  # settings read by an earlier test would not have the key

    def install(**options) -> CycleModels:
        models = CycleModels(**options)
        monkeypatch.setattr("jurist.autonomy._cycle_calls.get_model", models.get_model)
        return models

    yield install
    get_settings.cache_clear()


@pytest.fixture
def files(tmp_path):
    prompt = tmp_path / "prompt.txt"
    prompt.write_text(INITIAL + "\n")
    cases = tmp_path / "cases.jsonl"
    cases.write_text(
        "\n".join(json.dumps({"id": f"q{i}", "input": f"Question {i}?"}) for i in range(4))
    )
    return {"prompt": prompt, "cases": cases, "db": f"sqlite:///{tmp_path / 'store.sqlite3'}"}


def improve(files, *extra: str):
    args = ["improve", "--prompt", str(files["prompt"]), "--cases", str(files["cases"])]
    args += ["--criterion", CRITERION, "--database", files["db"], *extra]
    return runner.invoke(app, args)


def cycles(files, *args: str):
    return runner.invoke(app, ["cycles", *args, "--database", files["db"]])


# --- improve: how a cycle ends -----------------------------------------------------------


def test_a_kept_improvement_exits_0_and_writes_the_final_prompt(tmp_path, files, cycle_models):
    models = cycle_models()
    limits = tmp_path / "limits.yaml"
    limits.write_text("max_iterations: 5\nbreakpoint: none\nmax_tokens: 100000\n")
    out = tmp_path / "better.txt"
    result = improve(
        files,
        "--model",
        "openai:target",
        "--judge-model",
        "openai:judges",
        "--limits",
        str(limits),
        "--max-iterations",
        "1",
        "--name",
        "first",
        "--out",
        str(out),
        "--json",
    )
    assert result.exit_code == 0, result.output
    outcome = json.loads(result.stdout)
    assert outcome["status"] == "accepted"
    assert outcome["name"] == "first"
    assert outcome["iterations"] == 1
    assert outcome["initial_prompt"] == INITIAL  # read from the file without its newline
    assert outcome["prompt"] == IMPROVED
    assert outcome["baseline_score"] == pytest.approx(0.2)
    assert outcome["score"] == pytest.approx(0.9)
    assert 0 < outcome["usage"]["calls"] <= models.model.calls
    assert outcome["out"] == str(out)
    assert out.read_text() == IMPROVED + "\n"
    assert models.specs == ["openai:target", "openai:judges"]
    # Each stage is reported on standard error as it happens.
    assert "iteration 1: held-out score 0.200 -> 0.900: accepted" in result.stderr
    assert "cycle accepted" in result.stderr

    # The flags override the limits file; what the file sets otherwise holds.
    shown = json.loads(cycles(files, "show", "first", "--json").stdout)
    assert shown["spec"]["limits"]["max_iterations"] == 1
    assert shown["spec"]["limits"]["breakpoint"] == "none"
    assert shown["spec"]["limits"]["max_tokens"] == 100000
    assert shown["spec"]["criteria"] == [
        {"name": "the_answer_is_fine", "description": CRITERION, "weight": 1.0}
    ]

    # A name names one cycle only.
    again = improve(files, "--name", "first")
    assert again.exit_code == 2
    assert "--name: a cycle named 'first' exists already" in " ".join(again.stderr.split())


def test_a_cycle_without_improvement_exits_1_with_the_prompt_unchanged(files, cycle_models):
    cycle_models(improves=False)
    result = improve(files, "--max-iterations", "1", "--breakpoint", "none")
    assert result.exit_code == 1, result.output
    assert re.search(r"cycle \w+\s+rejected", result.stdout)
    assert "held-out score  0.200 -> 0.200" in result.stdout
    assert f"final prompt (unchanged):\n{INITIAL}" in result.stdout


def test_a_cycle_halted_by_its_token_budget_exits_1_naming_the_limit(files, cycle_models):
    models = cycle_models()
    result = improve(files, "--max-tokens", "50", "--json")
    assert result.exit_code == 1, result.output
    outcome = json.loads(result.stdout)
    assert outcome["status"] == "halted"
    assert outcome["reason"].startswith("budget:")
    assert "token" in outcome["reason"]
    assert models.model.calls == 0  # refused before the first call, not after it


def test_a_failed_cycle_exits_3(files, cycle_models):
    cycle_models(judging_fails=True)
    result = improve(files, "--json")
    assert result.exit_code == 3, result.output
    outcome = json.loads(result.stdout)
    assert outcome["status"] == "failed"
    assert "evaluator" in outcome["reason"]


def test_ctrl_c_exits_130_saying_how_to_go_on(files, monkeypatch):
    async def interrupted(*args, **options):
        raise KeyboardInterrupt

    monkeypatch.setattr("jurist.autonomy.start_cycle", interrupted)
    result = improve(files, "--name", "nightly")
    assert result.exit_code == 130, result.output
    assert "jurist improve --resume nightly" in " ".join(result.stderr.split())
    assert "Traceback" not in result.output


# --- a human breakpoint: paused, approved or rejected, resumed ----------------------------


def test_a_significant_change_pauses_with_4_until_a_person_approves_it(files, cycle_models):
    cycle_models()
    paused = improve(files, "--max-iterations", "1", "--name", "big")
    assert paused.exit_code == 4, paused.output
    said = " ".join(paused.stdout.split())
    assert (
        "waiting for approval: iteration 1 proposes the prompt below, held-out score "
        "0.200 -> 0.900 why a person decides: held-out score rose 0.700"
    ) in said
    assert IMPROVED in paused.stdout
    assert "`jurist cycles approve big`" in said
    assert "`jurist cycles approve big --reject`" in said

    listed = json.loads(cycles(files, "list", "--json").stdout)
    assert [(c["name"], c["status"]) for c in listed] == [("big", "paused")]
    # Resuming a paused cycle without a decision is refused, naming the flag.
    early = runner.invoke(app, ["improve", "--resume", "big", "--database", files["db"]])
    assert early.exit_code == 2
    assert "--resume: cycle 'big' waits for approval" in " ".join(early.stderr.split())

    approved = cycles(files, "approve", "big", "--note", "looks right", "--json")
    assert approved.exit_code == 0, approved.output
    outcome = json.loads(approved.stdout)
    assert (outcome["status"], outcome["prompt"]) == ("accepted", IMPROVED)
    assert "the change was approved (looks right)" in approved.stderr

    # The decision is part of the cycle's record, in order with everything else.
    shown = json.loads(cycles(files, "show", "big", "--json").stdout)
    kinds = [event["kind"] for event in shown["events"]]
    assert [event["seq"] for event in shown["events"]] == list(range(1, len(kinds) + 1))
    assert kinds.index("breakpoint") < kinds.index("human") < kinds.index("breaker")
    human = shown["events"][kinds.index("human")]
    assert human["message"] == {"decision": "approved", "note": "looks right", "iteration": 1}
    assert human["gist"] == "a person approved iteration 1's change: looks right"
    assert shown["status"] == "accepted"

    # Once decided, there is nothing left to approve.
    twice = cycles(files, "approve", "big")
    assert twice.exit_code == 2
    assert "CYCLE: cycle 'big' is accepted, not paused" in " ".join(twice.stderr.split())


def test_a_rejected_change_is_recorded_and_the_cycle_goes_on_later(files, cycle_models):
    cycle_models()
    assert improve(files, "--max-iterations", "1", "--name", "big").exit_code == 4
    decided = cycles(files, "approve", "big", "--reject", "--no-continue")
    assert decided.exit_code == 0, decided.output
    assert "jurist improve --resume big" in decided.stdout
    assert json.loads(cycles(files, "list", "--json").stdout)[0]["status"] == "running"

    resumed = runner.invoke(app, ["improve", "--resume", "big", "--database", files["db"]])
    assert resumed.exit_code == 1, resumed.output  # the only change was rejected
    assert re.search(r"cycle big \(\w+\)\s+rejected", resumed.stdout)
    assert f"final prompt (unchanged):\n{INITIAL}" in resumed.stdout


def test_cycles_show_replays_each_message_with_its_gist_then_the_outcome(files, cycle_models):
    cycle_models()
    assert (
        improve(files, "--max-iterations", "1", "--breakpoint", "none", "--name", "a").exit_code
        == 0
    )
    shown = cycles(files, "show", "a")
    assert shown.exit_code == 0, shown.output
    lines = shown.stdout.splitlines()
    assert lines[0].split() == ["seq", "stage", "kind", "message", "tokens", "cost"]
    assert lines[1].split()[:3] == ["1", "evaluation", "outputs"]
    assert "2 answers to the baseline prompt" in lines[1]
    text = " ".join(shown.stdout.split())
    assert "evaluator@test:cycle: score 0.200; failed: the_answer_is_fine" in text
    assert "analyst@test:cycle: vague: The prompt asks for nothing in particular" in text
    assert "rewriter@test:cycle: a prompt of 30 characters (explicit_instruction)" in text
    assert "adversarial@test:cycle: 1 finding (1 low)" in text
    assert "meta@test:cycle: continue: the score rises" in text
    assert "iteration 1: held-out 0.200 -> 0.900: accepted" in text
    assert "iterations breaker: 1 iterations reached" in text
    assert re.search(r"cycle a \(\w+\) accepted", text)
    assert f"final prompt: {IMPROVED}" in text

    missing = cycles(files, "show", "nope")
    assert missing.exit_code == 2
    assert "CYCLE: no cycle with id or name 'nope'" in missing.stderr


def test_cycles_list_says_how_to_start_when_there_are_none(files):
    result = cycles(files, "list")
    assert result.exit_code == 0
    assert "no cycles yet" in result.stdout


# --- bad input, named by its flag ---------------------------------------------------------


def bad_cases(tmp_path):
    path = tmp_path / "bad.jsonl"
    path.write_text('{"id": "a", "input": "Question?"}\n{"id": "b", "input": \n')
    return path


@pytest.mark.parametrize(
    ("args", "said"),
    [
        (["--prompt", "missing.txt"], "--prompt: no such file: missing.txt"),
        (["--cases", "{bad_cases}"], "--cases: {bad_cases}:2: not valid JSON"),
        (["--holdout", "1.5"], "--holdout: 1.5 must lie strictly between 0 and 1"),
        (["--breakpoint", "sometimes"], "--breakpoint: 'sometimes' is not one of"),
        (["--max-cost-usd", "0"], "--max-cost-usd: Input should be greater than 0"),
        (["--limits", "{limits}"], "--limits: {limits}: max_iteratons: unknown key"),
        (["--model", "gpt-4o"], "--model: "),
        (["--judge-model", "nowhere:x"], "--judge-model: "),
        (
            ["--criterion", "a=one", "--criterion", "a=two"],
            "--criterion: the name 'a' is given twice",
        ),
        (["--criterion", ""], "--criterion: '' has no text"),
        (["--out", "{tmp}/no/such/dir/p.txt"], "--out: no such directory"),
    ],
)
def test_bad_input_exits_2_naming_the_flag(tmp_path, files, cycle_models, args, said):
    models = cycle_models()
    limits = tmp_path / "limits.yaml"
    limits.write_text("max_iteratons: 3\n")
    values = {"bad_cases": bad_cases(tmp_path), "limits": limits, "tmp": tmp_path}
    args = [a.format(**values) for a in args]
    base = {"--prompt": str(files["prompt"]), "--cases": str(files["cases"])}
    for flag, value in base.items():
        if flag not in args:
            args += [flag, value]
    if "--criterion" not in args:
        args += ["--criterion", CRITERION]
    result = runner.invoke(app, ["improve", *args, "--database", files["db"]])
    assert result.exit_code == 2, result.output
    assert said.format(**values) in " ".join(result.stderr.split())
    assert models.model.calls == 0


@pytest.mark.parametrize(
    ("args", "said"),
    [
        ([], "--prompt: give the file"),
        (["--prompt", "{prompt}"], "--cases: give a .jsonl file"),
        (["--prompt", "{prompt}", "--cases", "{cases}"], "--criterion: give at least one"),
        (["--resume", "old", "--prompt", "{prompt}"], "--prompt: a resumed cycle keeps the spec"),
        (["--resume", "old", "--name", "new"], "--name: a resumed cycle keeps the spec"),
        (["--resume", "old"], "--resume: no cycle with id or name 'old'"),
    ],
)
def test_a_missing_or_contradictory_flag_exits_2_naming_it(files, args, said):
    args = [a.format(prompt=files["prompt"], cases=files["cases"]) for a in args]
    result = runner.invoke(app, ["improve", *args, "--database", files["db"]])
    assert result.exit_code == 2, result.output
    assert said in " ".join(result.stderr.split())


def test_criteria_are_named_by_their_name_or_their_first_words():
    specs = criterion_specs(
        [
            "tone=Polite and calm",
            "The answer cites a source",
            "The answer cites a source, always",
            "?!",
        ]
    )
    assert [(s.name, s.description) for s in specs] == [
        ("tone", "Polite and calm"),
        ("the_answer_cites_a", "The answer cites a source"),
        ("the_answer_cites_a_2", "The answer cites a source, always"),
        ("criterion_4", "?!"),
    ]
    # Text with an "=" that does not start with a name is plain text.
    assert criterion_specs(["x + y = z holds"])[0].description == "x + y = z holds"
    with pytest.raises(BadInput, match="--criterion: the name 'tone' is given twice"):
        criterion_specs(["tone=a", "tone=b"])


def test_a_message_outside_the_protocol_is_shown_as_compact_json():
    assert event_gist({"something": [1, 2]}) == '{"something":[1,2]}'
    long = event_gist({"reason": "x" * 300})
    assert len(long) == 100
    assert long.endswith("…")


def test_a_failed_iteration_is_shown_by_what_failed():
    failed = {
        "iteration": 2,
        "cause": "constraint_violation",
        "detail": "the rewriter failed (constraint_violation): too long",
    }
    assert event_gist(failed) == (
        "iteration 2 failed: the rewriter failed (constraint_violation): too long"
    )
    # Stored before the detail was kept apart, the cause held the whole sentence.
    assert event_gist({"iteration": 1, "cause": "the analyst failed"}) == (
        "iteration 1 failed: the analyst failed"
    )


# --- tournament and reputation ------------------------------------------------------------

CASE = re.compile(r"Output of case (\w+)\.")
LABELS = {"c1": True, "c2": True, "c3": False, "c4": False}


def panel(request: Request) -> Response:
    """Variant "right" agrees with the labels, "lenient" says yes to everything."""
    criterion = request.messages[-1].content.rstrip().rsplit("Criterion: ", 1)[1]
    found = CASE.search(request.messages[-1].content)
    assert found is not None
    label = LABELS[found.group(1)]
    return verdict(0.9 if label or criterion == "lenient" else 0.1)


@pytest.fixture
def tournament_files(tmp_path):
    truth = tmp_path / "labelled.jsonl"
    truth.write_text(
        "\n".join(
            json.dumps(
                {
                    "id": case,
                    "context": "A refund policy.",
                    "output": f"Output of case {case}.",
                    "label": label,
                }
            )
            for case, label in LABELS.items()
        )
    )
    variants = tmp_path / "variants.yaml"
    variants.write_text(
        "- {id: lenient, technique: custom, criterion: lenient}\n"
        "- {id: right, technique: custom, criterion: right}\n"
    )
    return {"truth": truth, "variants": variants, "db": f"sqlite:///{tmp_path / 'store.sqlite3'}"}


def stored_tournaments(database: str) -> list[StoredRun]:
    async def read() -> list[StoredRun]:
        async with await RecordStore.open(database) as records:
            return await records.list_runs(kind="tournament")

    return asyncio.run(read())


def tournament(tournament_files, *extra: str):
    args = ["tournament", "--ground-truth", str(tournament_files["truth"])]
    return runner.invoke(app, [*args, "--database", tournament_files["db"], *extra])


def test_a_tournament_ranks_saves_winners_and_records_reputations(
    tmp_path, tournament_files, use_model
):
    model = use_model(*[panel] * 100)
    saved = tmp_path / "winners"
    files = tournament_files
    result = tournament(
        files,
        "--variants",
        str(files["variants"]),
        "--samples",
        "1",
        "--save",
        str(saved),
        "--json",
    )
    assert result.exit_code == 0, result.output
    ranked = json.loads(result.stdout)
    assert [row["variant"]["id"] for row in ranked["rows"]] == ["right", "lenient"]
    assert model.calls == 2 * 4 * 2  # two variants, four cases, defaults and one sample
    assert ranked["saved"] == [str(saved / "right.judge.yaml"), str(saved / "variants.yaml")]
    assert (saved / "right.judge.yaml").is_file()

    # Each variant's reputation: its showing as metrics, and the score seeded from them.
    listed = runner.invoke(app, ["reputation", "list", "--json", "--database", files["db"]])
    reputations = {rep["judge_id"]: rep for rep in json.loads(listed.stdout)}
    assert list(reputations) == ["variant:right", "variant:lenient"]  # best first
    right = ReputationMetrics.model_validate(reputations["variant:right"]["metrics"])
    assert (right.accuracy_rate, right.consistency_score, right.agreement_rate) == (1.0, 1.0, 0.5)
    assert right.total_evaluations == 4
    assert reputations["variant:right"]["score"] == pytest.approx(reputation_score(right))
    lenient = ReputationMetrics.model_validate(reputations["variant:lenient"]["metrics"])
    assert lenient.accuracy_rate == 0.5  # balanced accuracy: all of the yeses, none of the noes

    # A second tournament adds to what the first showed, each change in the history.
    assert tournament(files, "--variants", str(files["variants"]), "--samples", "1").exit_code == 0
    shown = runner.invoke(
        app, ["reputation", "show", "variant:lenient", "--json", "--database", files["db"]]
    )
    lenient_now = json.loads(shown.stdout)
    assert lenient_now["metrics"]["accuracy_checks"] == 2
    assert lenient_now["metrics"]["total_evaluations"] == 8
    history = lenient_now["history"]
    assert [change["event"] for change in history] == ["seed", "seed"]
    assert history[0]["before"] == 0.5  # a new judge starts at the initial score
    assert history[0]["cycle_id"].startswith("tournament-")
    assert history[0]["cycle_id"] != history[1]["cycle_id"]
    # Each tournament's standings are kept as a run the changes name.
    stored = stored_tournaments(files["db"])
    assert [f"tournament-{run.id}" for run in stored] == [c["cycle_id"] for c in history][::-1]
    newest = stored[0]
    assert (newest.kind, newest.status, newest.spec["variants"]) == (
        "tournament",
        "done",
        ["lenient", "right"],
    )
    standings = newest.summary["rows"]
    assert [(r["rank"], r["variant"]["id"], r["judge_id"]) for r in standings] == [
        (1, "right", "variant:right"),
        (2, "lenient", "variant:lenient"),
    ]
    assert newest.summary["cases"] == 4
    assert "rank 2 of 2 on 4 cases" in history[0]["note"]

    readable = runner.invoke(
        app, ["reputation", "show", "variant:right", "--database", files["db"]]
    )
    assert readable.exit_code == 0, readable.output
    assert "judge variant:right" in readable.stdout
    assert "accuracy_rate" in readable.stdout
    assert "seed" in readable.stdout


def test_a_tournament_prints_its_table_and_the_reputations(tournament_files, use_model):
    use_model(*[panel] * 100)
    files = tournament_files
    result = tournament(files, "--variants", str(files["variants"]), "--samples", "0")
    assert result.exit_code == 0, result.output
    assert "| 1 | right | custom |" in result.stdout
    assert re.search(r"reputation variant:right: \d\.\d{3}", result.stdout)


@pytest.mark.parametrize(
    ("args", "said"),
    [
        ([], "--variants: give either --variants FILE or --criterion TEXT"),
        (["--variants", "{variants}", "--criterion", "x"], "--variants: give either"),
        (["--criterion", "  "], "--criterion: the criterion is blank"),
        (["--variants", "{broken}"], "--variants: {broken}: variants[0].criterion"),
        (["--criterion", "x", "--temperature", "0"], "--temperature: 0.0 must lie in (0, 2]"),
        (["--criterion", "x", "--model", "gpt"], "--model: "),
    ],
)
def test_tournament_bad_input_exits_2_naming_the_flag(
    tmp_path, tournament_files, use_model, args, said
):
    model = use_model()
    broken = tmp_path / "broken.yaml"
    broken.write_text("- {id: a, technique: custom}\n")
    values = {"variants": tournament_files["variants"], "broken": broken}
    result = tournament(tournament_files, *[a.format(**values) for a in args])
    assert result.exit_code == 2, result.output
    assert said.format(**values) in " ".join(result.stderr.split())
    assert model.calls == 0


def test_tournament_ground_truth_that_cannot_be_read_exits_2(tmp_path, tournament_files):
    missing = tmp_path / "missing.jsonl"
    result = runner.invoke(
        app,
        [
            "tournament",
            "--ground-truth",
            str(missing),
            "--criterion",
            "x",
            "--database",
            tournament_files["db"],
        ],
    )
    assert result.exit_code == 2, result.output
    assert "--ground-truth: " in result.stderr


def test_reputation_of_an_unknown_judge_exits_2(tournament_files):
    db = tournament_files["db"]
    result = runner.invoke(app, ["reputation", "show", "nobody", "--database", db])
    assert result.exit_code == 2
    assert "JUDGE: no reputation for 'nobody'" in result.stderr
    empty = runner.invoke(app, ["reputation", "list", "--database", db])
    assert "no reputations yet" in empty.stdout


@pytest.mark.parametrize(("env", "shown"), [({"TTY_COMPATIBLE": "1"}, True), ({}, False)])
def test_a_tournament_shows_it_is_running_at_a_terminal_only(
    tournament_files, use_model, env, shown
):
    use_model(*[panel] * 100)
    files = tournament_files
    args = ["tournament", "--ground-truth", str(files["truth"]), "--database", files["db"]]
    args += ["--variants", str(files["variants"]), "--samples", "0"]
    result = runner.invoke(app, args, env={"TERM": "xterm-256color", "COLUMNS": "200", **env})
    assert result.exit_code == 0, result.output
    assert ("running the tournament" in result.stderr) is shown
