"""`jurist tournament`: rank judge variants against labelled cases and record each
variant's reputation."""

import json
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer
from rich.text import Text

from jurist.cli._exit import Exit, exit_interrupted
from jurist.cli._improve import open_store
from jurist.cli._inputs import (
    BadInput,
    ModelOption,
    check_model_ready,
    check_model_spec,
    exit_bad_input,
)
from jurist.cli._kb import DatabaseOption
from jurist.cli._progress import showing_progress
from jurist.cli._render import output_console
from jurist.cli._reputation import reputation_row
from jurist.core import run_sync
from jurist.data import DatasetError
from jurist.llm import ModelError
from jurist.store import StoreError

if TYPE_CHECKING:
    from jurist.autonomy import (
        Reputation,
        TournamentResult,
    )


# The autonomy modules pull in the judges, and the tournament jurist.calibration (scipy,
# scikit-learn): they are imported inside the commands, so other commands do not pay.

# --- jurist tournament --------------------------------------------------------------------


def tournament_command(
    *,
    ground_truth: Annotated[
        Path,
        typer.Option(
            "--ground-truth",
            help="Labelled cases (.jsonl or .csv): id, context, output, label.",
        ),
    ],
    variants: Annotated[
        Path | None, typer.Option("--variants", "--judges", help="A YAML file of judge variants.")
    ] = None,
    criterion: Annotated[
        str | None,
        typer.Option(
            "--criterion", help="A criterion to make variants of (instead of --variants)."
        ),
    ] = None,
    variants_n: Annotated[
        int,
        typer.Option(
            "--variants-n",
            help="Variants made of --criterion: 5 techniques, then model rewordings.",
            min=1,
        ),
    ] = 5,
    samples: Annotated[
        int,
        typer.Option("--samples", help="Sampled runs per case, to measure consistency.", min=0),
    ] = 2,
    temperature: Annotated[
        float, typer.Option("--temperature", help="Temperature of the sampled runs (0..2].")
    ] = 0.7,
    save: Annotated[
        Path | None,
        typer.Option("--save", help="Write the best variants here as judge spec files."),
    ] = None,
    top: Annotated[int, typer.Option("--top", help="How many best variants to save.", min=1)] = 1,
    model: ModelOption = None,
    concurrency: Annotated[
        int, typer.Option("--concurrency", "-c", help="Model calls at once.", min=1)
    ] = 4,
    database: DatabaseOption = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print the result as JSON.")] = False,
) -> None:
    """Rank judge variants of one criterion: each judges every labelled case once at the
    model's defaults and --samples more times at --temperature, and is scored on agreement
    with the labels, with itself and with its peers. Each variant's reputation (judge
    `variant:<id>`) is recorded: its accuracy, consistency and agreement, and a score seeded
    from them. --save writes the --top best as `<id>.judge.yaml` files.

    Exit codes: 0 ranked, 2 bad input, 3 the store failed.
    """
    try:
        _check_tournament_input(
            variants,
            criterion=criterion,
            model=model,
            samples=samples,
            temperature=temperature,
            save=save,
        )
    except BadInput as exc:
        exit_bad_input(exc)

    from jurist.autonomy import (
        VariantError,
        load_ground_truth,
        load_variants,
        record_tournament,
        run_tournament,
        save_winners,
        seed_variants,
    )
    from jurist.judges import ModelRef

    try:
        cases = load_ground_truth(ground_truth)
    except (DatasetError, OSError, ValueError) as exc:
        exit_bad_input(BadInput(f"--ground-truth: {exc}"))
    chosen = None
    if variants is not None:
        try:
            chosen = load_variants(variants)
        except VariantError as exc:  # it names the file, the entry and the field
            exit_bad_input(BadInput(f"--variants: {exc}"))

    async def run() -> "tuple[TournamentResult, list[Reputation]]":
        # The store first: a database that cannot be opened should not cost a tournament.
        async with await open_store(database) as store:
            judge_model = ModelRef(model).get()
            entrants = chosen
            if entrants is None:
                assert criterion is not None
                try:
                    entrants = await seed_variants(criterion, variants_n, judge_model)
                except VariantError as exc:
                    raise BadInput(f"--criterion: {exc}") from exc
            result = await run_tournament(
                entrants,
                cases,
                judge_model,
                samples=samples,
                temperature=temperature,
                concurrency=concurrency,
            )
            # The standings are kept as a run of kind "tournament" (`jurist view` shows it).
            ran = {
                "ground_truth": str(ground_truth),
                "variants": [variant.id for variant in entrants],
                "criterion": criterion,
                "model": result.model,
                "samples": samples,
                "temperature": temperature,
            }
            recorded = await record_tournament(store, result, spec=ran)
            return result, recorded.reputations

    try:
        with showing_progress("running the tournament", quiet=as_json):
            result, recorded = run_sync(run)
    except KeyboardInterrupt:
        exit_interrupted("interrupted; nothing was recorded")
    except VariantError as exc:  # a variant's template that cannot be loaded
        exit_bad_input(BadInput(f"--variants: {exc}"))
    except (BadInput, ValueError) as exc:
        exit_bad_input(exc)
    except ModelError as exc:
        typer.echo(f"error: the model failed: {exc}", err=True)
        raise typer.Exit(Exit.UNDECIDED) from exc
    except StoreError as exc:
        typer.echo(f"error: the reputations could not be recorded: {exc}", err=True)
        raise typer.Exit(Exit.UNDECIDED) from exc
    written = save_winners(result, save, top) if save is not None else []
    _print_tournament(result, recorded, written, as_json=as_json)


def _check_tournament_input(
    variants: Path | None,
    *,
    criterion: str | None,
    model: str | None,
    samples: int,
    temperature: float,
    save: Path | None,
) -> None:
    if (variants is None) == (criterion is None):
        raise BadInput("--variants: give either --variants FILE or --criterion TEXT")
    if criterion is not None and not criterion.strip():
        raise BadInput("--criterion: the criterion is blank")
    check_model_spec(model)
    check_model_ready(model)
    if samples and not 0.0 < temperature <= 2.0:
        raise BadInput(
            f"--temperature: {temperature} must lie in (0, 2]: sampling at 0 repeats the "
            "default answer and measures nothing"
        )
    if save is not None and save.exists() and not save.is_dir():
        raise BadInput(f"--save: {save} is a file, not a directory")


def _print_tournament(
    result: "TournamentResult",
    recorded: "Sequence[Reputation]",
    written: Sequence[Path],
    *,
    as_json: bool,
) -> None:
    if as_json:
        payload = {
            **result.to_dict(),
            "reputations": [reputation_row(rep) for rep in recorded],
            "saved": [str(path) for path in written],
        }
        typer.echo(json.dumps(payload, indent=2))
        return
    # Plain text, never wrapped: a Markdown table cut at the terminal's width is no table.
    typer.echo(result.to_markdown())
    console = output_console()
    for rep in recorded:
        console.print(
            Text(f"reputation {rep.judge_id}: {rep.score:.3f}", style="dim"), highlight=False
        )
    for path in written:
        console.print(Text(f"saved {path}", style="dim"), highlight=False)
