"""The tournament: judge variants judge the same labelled cases, and are ranked.

Each variant judges every case once at the model's defaults (its verdict and P(yes)) and
`samples` more times at a temperature above 0 with other seeds. From these it is scored
three ways:

* against the human labels: accuracy, balanced accuracy, Cohen's kappa, AUC of P(yes);
* against itself: consistency, the share of cases whose sampled verdicts all equal the
  default verdict;
* against its peers: for every pair of variants, how often their default verdicts agree
  (and Cohen's kappa); a variant's peer agreement is the mean over its pairs.

An ERROR judgment is never a vote: it is counted (`errors`) and left out of every
statistic, as is an abstention. The ranking is by `Fitness` (see there), ties broken by
fewer errors, then lower cost (tokens when the cost is unknown), then the order given.
"""

import asyncio
import dataclasses
import math
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Literal

import yaml
from pydantic import BaseModel, ConfigDict, model_validator

from jurist.autonomy._variants import (
    JudgeVariant,
    VariantError,
    check_distinct_ids,
    is_template_path,
    save_variants,
)
from jurist.calibration import binary_metrics, cohen_kappa
from jurist.core import Context, Judge, Judgment, Status, Usage, run_judge
from jurist.data import BinaryItem, DatasetKind, LabelledDataset, load_labelled
from jurist.judges import CriterionReport, ModelRef
from jurist.llm import Model, with_options
from jurist.prompts import PromptError
from jurist.specs import parse_judge_spec

GroundTruthMetric = Literal["balanced_accuracy", "accuracy"]
Component = Literal["ground_truth", "consistency", "peer_agreement"]
COMPONENTS: tuple[Component, ...] = ("ground_truth", "consistency", "peer_agreement")
VARIANTS_FILE = "variants.yaml"
SPEC_SUFFIX = ".judge.yaml"
# Fitness values closer than this are a tie (a weighted sum of floats is not exact).
_TIE_DIGITS = 9


class Fitness(BaseModel):
    """How a variant is scored: the weighted mean of three shares in 0..1.

    * `ground_truth`: balanced accuracy against the labels (plain accuracy when the cases
      carry one label only, where balanced accuracy is undefined);
    * `consistency`: the share of cases whose sampled verdicts all equal the default one;
    * `peer_agreement`: the mean agreement of its default verdicts with each other
      variant's.

    A component undefined for every variant (no samples; a single variant) is left out
    and the other weights rescaled; one undefined for some variants only counts 0 for them.
    The default, 0.6 / 0.2 / 0.2, puts agreement with people first: a judge that is
    stable and agrees with its peers but not with the labels is consistently wrong.
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    ground_truth: float = 0.6
    consistency: float = 0.2
    peer_agreement: float = 0.2

    @model_validator(mode="after")
    def _weights(self) -> "Fitness":
        for name in COMPONENTS:
            weight = getattr(self, name)
            if not math.isfinite(weight) or weight < 0:
                raise ValueError(f"{name}: {weight!r} is not a finite weight >= 0")
        if sum(self.weight(name) for name in COMPONENTS) <= 0:
            raise ValueError("the fitness weights are all 0: give at least one a weight")
        return self

    def weight(self, component: Component) -> float:
        value: float = getattr(self, component)
        return value

    def describe(
        self,
        metric: GroundTruthMetric = "balanced_accuracy",
        components: Sequence[Component] = COMPONENTS,
    ) -> str:
        """The weighted sum in words, e.g. "0.6 x balanced accuracy + 0.2 x consistency"."""
        words = {
            "ground_truth": metric.replace("_", " "),
            "consistency": "consistency",
            "peer_agreement": "peer agreement",
        }
        return " + ".join(
            f"{self.weight(c):g} x {words[c]}" for c in components if self.weight(c) > 0
        )


class PeerPair(BaseModel):
    """Two variants' default verdicts compared on the `cases` both decided."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    first: str
    second: str
    cases: int
    agreement: float | None
    kappa: float | None


class Standing(BaseModel):
    """One variant's place in the tournament, its statistics and what it cost.

    `judged` counts the cases with a default verdict; `errors` the ERROR judgments over all
    its calls; `seconds` adds up the wall time of its calls (overlapping calls each count).
    `verdicts` and `p_yes` are its default answers by case id (None: no verdict, or no
    probability).
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    rank: int
    variant: JudgeVariant
    fitness: float
    accuracy: float | None
    balanced_accuracy: float | None
    kappa: float | None
    auc: float | None
    consistency: float | None
    peer_agreement: float | None
    peer_kappa: float | None
    judged: int
    errors: int
    calls: int
    input_tokens: int
    output_tokens: int
    cost_usd: float | None
    seconds: float
    verdicts: dict[str, bool | None]
    p_yes: dict[str, float | None]

    @property
    def total_tokens(self) -> int:
        return self.input_tokens + self.output_tokens


class TournamentResult(BaseModel):
    """The standings, best first, and every pair of peers compared."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    rows: tuple[Standing, ...]
    pairs: tuple[PeerPair, ...]
    labels: dict[str, bool]
    model: str
    samples: int
    temperature: float
    fitness: Fitness
    ground_truth_metric: GroundTruthMetric
    scored: tuple[Component, ...]

    def winners(self, k: int = 1) -> list[JudgeVariant]:
        """The `k` best variants (all of them when there are fewer)."""
        if isinstance(k, bool) or not isinstance(k, int) or k < 1:
            raise ValueError(f"k: {k!r} is not a whole number >= 1")
        return [row.variant for row in self.rows[:k]]

    def standing(self, variant_id: str) -> Standing:
        for row in self.rows:
            if row.variant.id == variant_id:
                return row
        known = ", ".join(row.variant.id for row in self.rows)
        raise KeyError(f"variant {variant_id!r} is not in the tournament; it has: {known}")

    def to_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = self.model_dump(mode="json")
        return data

    def to_markdown(self) -> str:
        lines = [
            f"Judge tournament: {len(self.rows)} variants, {len(self.labels)} cases, "
            f"model {self.model}, {self.samples} samples at temperature {self.temperature:g}.",
            f"{self._formula()}; ties: fewer errors, then lower cost.",
            "",
            "| rank | variant | technique | fitness | bal. acc. | accuracy | kappa | AUC "
            "| consistency | peer agr. | errors | tokens | cost | seconds |",
            "|---:|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
        ]
        for row in self.rows:
            cost = "n/a" if row.cost_usd is None else f"${row.cost_usd:.4f}"
            lines.append(
                f"| {row.rank} | {row.variant.id} | {row.variant.technique.value} "
                f"| {row.fitness:.3f} | {_share(row.balanced_accuracy)} | {_share(row.accuracy)} "
                f"| {_share(row.kappa)} | {_share(row.auc)} | {_share(row.consistency)} "
                f"| {_share(row.peer_agreement)} | {row.errors} | {row.total_tokens} | {cost} "
                f"| {row.seconds:.1f} |"
            )
        if self.pairs:
            lines += ["", "| peers | cases | agreement | kappa |", "|---|---:|---:|---:|"]
            for pair in self.pairs:
                lines.append(
                    f"| {pair.first} vs {pair.second} | {pair.cases} "
                    f"| {_share(pair.agreement)} | {_share(pair.kappa)} |"
                )
        return "\n".join(lines) + "\n"

    def _formula(self) -> str:
        scored = [c for c in COMPONENTS if c in self.scored]
        if not scored:
            return "Fitness is 0 for every variant: none of its components could be measured"
        terms = self.fitness.describe(self.ground_truth_metric, scored)
        total = sum(self.fitness.weight(c) for c in scored)
        if math.isclose(total, 1.0):
            return f"Fitness = {terms}"
        return f"Fitness = ({terms}) / {total:g}"


def _share(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.2f}"


# --- cases ------------------------------------------------------------------------------


def load_ground_truth(path: str | Path) -> tuple[BinaryItem, ...]:
    """The labelled cases of a binary calibration dataset (JSONL or CSV: id, context,
    output, label; a `goal` field is the task the output was written for)."""
    return load_labelled(path, DatasetKind.BINARY).binary


def case_context(item: BinaryItem) -> Context:
    """What a judge sees of a case: its output, its context as the source, and its goal
    (an extra `goal` field of the dataset, kept in the item's metadata)."""
    goal = item.metadata.get("goal")
    passages = (item.context,) if item.context.strip() else ()
    return Context(goal=goal if isinstance(goal, str) else "", output=item.output, context=passages)


def _case_items(cases: LabelledDataset | Sequence[BinaryItem]) -> tuple[BinaryItem, ...]:
    items = cases.binary if isinstance(cases, LabelledDataset) else tuple(cases)
    if not items:
        raise ValueError("cases: no cases; a tournament needs labelled cases to judge")
    first: dict[str, int] = {}
    for index, item in enumerate(items):
        if not isinstance(item, BinaryItem):
            raise ValueError(
                f"cases[{index}]: a {type(item).__name__}, not a binary item (id, context, "
                "output, label)"
            )
        if item.id in first:
            raise ValueError(
                f"cases[{index}].id: {item.id!r} is already used by cases[{first[item.id]}]"
            )
        first[item.id] = index
    return items


def _whole(value: object, name: str, least: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < least:
        raise ValueError(f"{name}: {value!r} is not a whole number >= {least}")
    return value


# --- running ----------------------------------------------------------------------------


@dataclasses.dataclass
class _Calls:
    """One variant's judgments: `runs[0]` at the defaults, `runs[1:]` sampled; each a
    judgment per case id."""

    runs: list[dict[str, Judgment]]
    seconds: float = 0.0


def _judges(
    variants: Sequence[JudgeVariant], model: Model, samples: int, temperature: float
) -> list[list[Judge]]:
    """Per variant, its judge at the defaults and one per sample (seeds 1, 2, ...: the
    default request's seed is 0). A template that cannot be loaded fails here, before any
    call."""
    built: list[list[Judge]] = []
    for index, variant in enumerate(variants):
        models: list[Model] = [model] + [
            with_options(model, temperature=temperature, seed=seed)
            for seed in range(1, samples + 1)
        ]
        try:
            built.append([variant.build(m) for m in models])
        except PromptError as exc:
            raise VariantError([f"variants[{index}].template: {exc}"]) from exc
    return built


async def _run_all(
    judges: list[list[Judge]], contexts: dict[str, Context], concurrency: int
) -> list[_Calls]:
    gate = asyncio.Semaphore(concurrency)
    calls = [_Calls([{} for _ in runs]) for runs in judges]

    async def one(variant: int, run: int, case: str) -> None:
        async with gate:
            started = time.perf_counter()
            judgment = await run_judge(judges[variant][run], contexts[case])
            calls[variant].seconds += time.perf_counter() - started
        calls[variant].runs[run][case] = judgment

    async with asyncio.TaskGroup() as group:
        for variant, runs in enumerate(judges):
            for run in range(len(runs)):
                for case in contexts:
                    group.create_task(one(variant, run, case))
    return calls


async def run_tournament(
    variants: Sequence[JudgeVariant],
    cases: LabelledDataset | Sequence[BinaryItem],
    model: Model | str | None = None,
    *,
    samples: int = 2,
    temperature: float = 0.7,
    concurrency: int = 4,
    fitness: Fitness | None = None,
) -> TournamentResult:
    """Every variant judges every case, once at the model's defaults and `samples` times at
    `temperature` with distinct seeds; at most `concurrency` calls run at once, all through
    `model`. Returns the variants ranked by `fitness` (see the module and `Fitness`)."""
    chosen_variants = list(variants)
    if not chosen_variants:
        raise ValueError("variants: no variants; a tournament needs at least one")
    check_distinct_ids(chosen_variants)
    items = _case_items(cases)
    _whole(samples, "samples", 0)
    _whole(concurrency, "concurrency", 1)
    if samples and not 0.0 < temperature <= 2.0:
        raise ValueError(
            f"temperature: {temperature!r} must lie in (0, 2]: sampling at 0 repeats the "
            "default answer and measures nothing"
        )
    weights = fitness or Fitness()
    resolved = ModelRef(model).get()
    judges = _judges(chosen_variants, resolved, samples, temperature)
    contexts = {item.id: case_context(item) for item in items}
    calls = await _run_all(judges, contexts, concurrency)

    labels = {item.id: item.label for item in items}
    metric: GroundTruthMetric = (
        "balanced_accuracy" if len(set(labels.values())) == 2 else "accuracy"
    )
    verdicts = [{case: _verdict(j) for case, j in c.runs[0].items()} for c in calls]
    pairs = _peer_pairs(chosen_variants, verdicts, list(labels))
    stats = [
        _statistics(variant, c, labels, pairs)
        for variant, c in zip(chosen_variants, calls, strict=True)
    ]
    scored = _score(stats, weights, metric)
    order = sorted(range(len(stats)), key=lambda i: _rank_key(stats[i], i))
    rows = tuple(
        Standing(rank=rank, variant=chosen_variants[i], **stats[i])
        for rank, i in enumerate(order, start=1)
    )
    return TournamentResult(
        rows=rows,
        pairs=tuple(pairs),
        labels=labels,
        model=resolved.name,
        samples=samples,
        temperature=temperature,
        fitness=weights,
        ground_truth_metric=metric,
        scored=scored,
    )


# --- statistics -------------------------------------------------------------------------


def _verdict(judgment: Judgment) -> bool | None:
    """PASS is yes and FAIL is no; an error or an abstention is no vote."""
    if judgment.status is Status.PASS:
        return True
    if judgment.status is Status.FAIL:
        return False
    return None


def _p_yes(judgment: Judgment) -> float | None:
    verdict = CriterionReport.of(judgment)
    if _verdict(judgment) is None or verdict is None:
        return None
    return verdict.p_yes


def _mean(values: Sequence[float]) -> float | None:
    return sum(values) / len(values) if values else None


def _peer_pairs(
    variants: Sequence[JudgeVariant],
    verdicts: Sequence[dict[str, bool | None]],
    cases: Sequence[str],
) -> list[PeerPair]:
    pairs: list[PeerPair] = []
    for i in range(len(variants)):
        for j in range(i + 1, len(variants)):
            shared = [
                (a, b)
                for case in cases
                if (a := verdicts[i].get(case)) is not None
                and (b := verdicts[j].get(case)) is not None
            ]
            agreement = _mean([1.0 if a == b else 0.0 for a, b in shared])
            kappa = (
                cohen_kappa(
                    [int(a) for a, _ in shared], [int(b) for _, b in shared], n_boot=0
                ).value
                if shared
                else None
            )
            pairs.append(
                PeerPair(
                    first=variants[i].id,
                    second=variants[j].id,
                    cases=len(shared),
                    agreement=agreement,
                    kappa=kappa,
                )
            )
    return pairs


def _consistency(runs: list[dict[str, Judgment]]) -> float | None:
    """Over the cases with a default verdict and at least one sampled verdict: the share
    where every sampled verdict equals the default one. A sample that errored says
    nothing about consistency and is left out."""
    counted = consistent = 0
    for case, judgment in runs[0].items():
        default = _verdict(judgment)
        sampled = [v for run in runs[1:] if (v := _verdict(run[case])) is not None]
        if default is None or not sampled:
            continue
        counted += 1
        consistent += all(v == default for v in sampled)
    return consistent / counted if counted else None


def _statistics(
    variant: JudgeVariant, calls: _Calls, labels: dict[str, bool], pairs: Sequence[PeerPair]
) -> dict[str, Any]:
    cases = list(labels)
    default = calls.runs[0]
    verdicts = {case: _verdict(default[case]) for case in cases}
    p_yes = {case: _p_yes(default[case]) for case in cases}
    judged = sum(v is not None for v in verdicts.values())
    truth: dict[str, float | None] = dict.fromkeys(
        ("accuracy", "balanced_accuracy", "kappa", "auc")
    )
    if judged:
        found = binary_metrics(
            [labels[c] for c in cases],
            [verdicts[c] for c in cases],
            [p_yes[c] for c in cases],
            n_boot=0,
        )
        kappa = cohen_kappa(
            [int(labels[c]) for c in cases],
            [None if (v := verdicts[c]) is None else int(v) for c in cases],
            n_boot=0,
        )
        truth = {
            "accuracy": found.accuracy.value,
            "balanced_accuracy": found.balanced_accuracy.value,
            "kappa": kappa.value,
            "auc": found.auc.value,
        }
    mine = [p for p in pairs if variant.id in (p.first, p.second)]
    judgments = [j for run in calls.runs for j in run.values()]
    usage = Usage.total(j.usage for j in judgments) or Usage()
    return {
        **truth,
        "consistency": _consistency(calls.runs),
        "peer_agreement": _mean([p.agreement for p in mine if p.agreement is not None]),
        "peer_kappa": _mean([p.kappa for p in mine if p.kappa is not None]),
        "judged": judged,
        "errors": sum(j.status is Status.ERROR for j in judgments),
        "calls": len(judgments),
        "input_tokens": usage.input_tokens,
        "output_tokens": usage.output_tokens,
        "cost_usd": usage.cost_usd,
        "seconds": calls.seconds,
        "verdicts": verdicts,
        "p_yes": p_yes,
    }


def _score(
    stats: Sequence[dict[str, Any]], weights: Fitness, metric: GroundTruthMetric
) -> tuple[Component, ...]:
    """Sets each variant's "fitness"; returns the components it counts: those with a
    weight that are defined for at least one variant."""
    scored = tuple(
        component
        for component in COMPONENTS
        if weights.weight(component) > 0
        and any(_component(s, component, metric) is not None for s in stats)
    )
    total = sum(weights.weight(c) for c in scored)
    for s in stats:
        measured = sum(weights.weight(c) * (_component(s, c, metric) or 0.0) for c in scored)
        s["fitness"] = measured / total if scored else 0.0
    return scored


def _component(
    stats: dict[str, Any], component: Component, metric: GroundTruthMetric
) -> float | None:
    key = metric if component == "ground_truth" else component
    value: float | None = stats[key]
    return value


def _rank_key(stats: dict[str, Any], position: int) -> tuple[float, int, float, int, int]:
    cost = stats["cost_usd"]
    return (
        -round(stats["fitness"], _TIE_DIGITS),
        stats["errors"],
        math.inf if cost is None else cost,
        stats["input_tokens"] + stats["output_tokens"],
        position,
    )


# --- saving winners ---------------------------------------------------------------------


def winner_spec(variant: JudgeVariant) -> dict[str, Any]:
    """The judge spec (`type: criterion`) that `jurist eval --judge FILE` builds into the
    variant's judge. A spec names package templates only, never files: a variant whose
    template is a file gets the criterion judge's own template, and its description says so.
    """
    description = f"judge variant {variant.id}"
    if variant.technique.value != variant.id:
        description += f" ({variant.technique.value})"
    if variant.notes:
        description += f": {variant.notes}"
    spec: dict[str, Any] = {"type": "criterion", "name": variant.id, "criterion": variant.criterion}
    if variant.reason_first:
        spec["reason_first"] = True
    if variant.template is not None:
        if is_template_path(variant.template):
            description += (
                f"; its template file {variant.template} cannot be named in a spec, so this "
                "judge uses the criterion template"
            )
        else:
            spec["template"] = variant.template
    spec["description"] = description
    parse_judge_spec(spec, variant.id)  # a spec this module writes must load
    return spec


def save_winners(result: TournamentResult, directory: str | Path, k: int = 1) -> list[Path]:
    """Writes the `k` best variants as judge spec files `<id>.judge.yaml` (each one a
    `jurist eval --judge FILE` accepts) and all of them as `variants.yaml` in `directory`.
    Returns the files written, the specs first in rank order."""
    winners = result.winners(k)
    target = Path(directory)
    target.mkdir(parents=True, exist_ok=True)
    written: list[Path] = []
    for variant in winners:
        row = result.standing(variant.id)
        header = (
            f"# Judge variant {variant.id}: rank {row.rank} of {len(result.rows)} in a "
            f"tournament on {len(result.labels)} cases with {result.model}, "
            f"fitness {row.fitness:.3f}.\n"
        )
        body = yaml.safe_dump(winner_spec(variant), sort_keys=False, allow_unicode=True, width=100)
        path = target / f"{variant.id}{SPEC_SUFFIX}"
        path.write_text(header + body, "utf-8")
        written.append(path)
    written.append(save_variants(winners, target / VARIANTS_FILE))
    return written
