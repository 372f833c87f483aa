"""`anchored`: the G-Eval rubric asked with scored examples taken from the calibration data,
leave-one-document-out.

For each item and criterion the judge shows k summaries of *other* documents with their
human score, spread over the scale those documents' scores reach. An example never comes
from the evaluated item's document: pool items are excluded by the sha256 of their source
(whitespace-normalised), by document id when the Context names one, and by the evaluated
output itself, so neither the item's own label nor a sibling summary's label is ever shown.
The choice is seeded by the evaluated source, so a rerun shows the same examples.
"""

import hashlib
import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from jurist.calibration._methods import PlainRubric
from jurist.core import BaseJudge, Context, Judge, JudgeKind, Judgment
from jurist.data import LabelledDataset, RatingItem
from jurist.judges import RubricJudge
from jurist.llm import Model
from jurist.rubrics import Rubric, RubricExample

# Context metadata keys that may name the evaluated item's document or the item itself.
DOCUMENT_KEYS = ("doc_id", "group", "doc")
ITEM_KEYS = ("id", "item_id")
_SHOWN_SCALE = (1, 5)


@dataclass(frozen=True)
class _Candidate:
    item: RatingItem
    source_key: str
    output_key: str


@dataclass(frozen=True)
class Anchor:
    """One example shown for a criterion: the pool item, its document, its human score on
    the dataset's scale, and the integer 1..5 the prompt shows."""

    id: str
    doc_id: str
    human: float
    shown: int

    def as_metadata(self) -> dict[str, object]:
        return {"id": self.id, "doc_id": self.doc_id, "human": self.human, "shown": self.shown}


class Anchored(PlainRubric):
    """The plain rubric plus `per_criterion` human-scored examples per criterion, drawn from
    the other documents of the calibration dataset (`prepare` keeps them). Read like the
    plain rubric."""

    name = "anchored"
    description = "the rubric with human-scored examples from the other documents (LODO)"

    def __init__(self, per_criterion: int = 3, *, seed: int = 0) -> None:
        if per_criterion < 1:
            raise ValueError(f"per_criterion must be at least 1, got {per_criterion}")
        self.per_criterion = per_criterion
        self.seed = seed
        self.pool: tuple[RatingItem, ...] = ()

    def prepare(self, dataset: LabelledDataset) -> None:
        self.pool = dataset.ratings

    def judge(self, rubric: Rubric, dimensions: Sequence[str], model: Model | str | None) -> Judge:
        if not self.pool:
            # Without a pool every item would silently be judged plain.
            raise ValueError("the anchored method has no rated items: call prepare(dataset) first")
        return AnchoredJudge(
            rubric,
            model,
            criteria=dimensions,
            pool=self.pool,
            per_criterion=self.per_criterion,
            seed=self.seed,
        )


class AnchoredJudge(BaseJudge):
    """A RubricJudge whose examples are chosen per Context from `pool`, never from the
    Context's own document. The judgment's metadata["anchors"] lists, per criterion, the
    pool items shown (id, doc_id, human score, shown score)."""

    kind = JudgeKind.MODEL

    def __init__(
        self,
        rubric: Rubric,
        model: Model | str | None,
        *,
        criteria: Sequence[str],
        pool: Sequence[RatingItem],
        per_criterion: int = 3,
        seed: int = 0,
    ) -> None:
        if per_criterion < 1:
            raise ValueError(f"per_criterion must be at least 1, got {per_criterion}")
        for name in criteria:
            rubric.criterion(name)  # a KeyError naming the criterion, now rather than later
        super().__init__(f"anchored:{per_criterion}:rubric:{rubric.id}", rubric.description)
        self.rubric = rubric
        self.model = model
        self.criteria = list(criteria)
        self.per_criterion = per_criterion
        self.seed = seed
        self.pool = tuple(
            _Candidate(item, _text_key(item.source), _text_key(item.output)) for item in pool
        )
        self._judges: dict[tuple[tuple[str, tuple[str, ...]], ...], RubricJudge] = {}

    async def judge(self, ctx: Context) -> Judgment:
        anchors = self.anchors_for(ctx)
        judgment = await self._rubric_judge(anchors).judge(ctx)
        shown = {
            criterion: [anchor.as_metadata() for anchor in chosen]
            for criterion, chosen in anchors.items()
        }
        return judgment.evolve(metadata={**judgment.metadata, "judge": self.name, "anchors": shown})

    def anchors_for(self, ctx: Context) -> dict[str, list[Anchor]]:
        """Per criterion, the examples shown for `ctx`: at most `per_criterion`, all from
        other documents, lowest human score first."""
        eligible = self._other_documents(ctx)
        return {
            criterion: self._spread(criterion, eligible, _source_key(ctx))
            for criterion in self.criteria
        }

    def _other_documents(self, ctx: Context) -> list[_Candidate]:
        passages = {_text_key(" ".join(ctx.context))} | {_text_key(p) for p in ctx.context}
        output = _text_key(ctx.output_text())
        item_ids = {str(ctx.metadata[k]) for k in ITEM_KEYS if ctx.metadata.get(k) is not None}
        excluded_docs = {str(ctx.metadata[k]) for k in DOCUMENT_KEYS if ctx.metadata.get(k)}
        for candidate in self.pool:
            # The item itself may reach us with its source reworded: its summary or its id
            # still gives its document away.
            if (
                candidate.source_key in passages
                or candidate.output_key == output
                or candidate.item.id in item_ids
            ):
                excluded_docs.add(candidate.item.doc_id)
        return [
            c
            for c in self.pool
            if c.item.doc_id not in excluded_docs and c.source_key not in passages
        ]

    def _spread(
        self, criterion: str, eligible: Sequence[_Candidate], seed_key: str
    ) -> list[Anchor]:
        rated = [c for c in eligible if criterion in c.item.human_scores and c.item.output.strip()]
        # Seeded by the evaluated source, so every rerun (and every summary of that source)
        # sees the same examples, and ties on a score are broken differently per source.
        rng = random.Random(_seed_of(self.seed, seed_key, criterion))
        order = sorted(rated, key=lambda c: c.item.id)
        rng.shuffle(order)
        position = {c.item.id: i for i, c in enumerate(order)}
        scores = {c.item.id: _on_shown_scale(c.item, criterion) for c in order}
        chosen: list[_Candidate] = []
        if len(order) <= self.per_criterion:
            chosen = list(order)
        else:
            low, high = min(scores.values()), max(scores.values())
            for target in _targets(low, high, self.per_criterion):
                used_ids = {c.item.id for c in chosen}
                used_docs = {c.item.doc_id for c in chosen}
                # Nearest the target first; then a document not yet shown; then the seeded
                # order.
                best = min(
                    (c for c in order if c.item.id not in used_ids),
                    key=lambda c: (
                        abs(scores[c.item.id] - target),
                        c.item.doc_id in used_docs,
                        position[c.item.id],
                    ),
                )
                chosen.append(best)
        chosen.sort(key=lambda c: (scores[c.item.id], position[c.item.id]))
        return [
            Anchor(
                c.item.id,
                c.item.doc_id,
                c.item.human_scores[criterion],
                _rounded(scores[c.item.id]),
            )
            for c in chosen
        ]

    def _rubric_judge(self, anchors: Mapping[str, Sequence[Anchor]]) -> RubricJudge:
        key = tuple(
            (criterion, tuple(a.id for a in chosen)) for criterion, chosen in anchors.items()
        )
        judge = self._judges.get(key)
        if judge is None:
            outputs = {c.item.id: c.item.output for c in self.pool}
            # Summaries only, no sources: a source is hundreds of words, and k of them per
            # criterion would crowd the evaluated source out of a small model's context and
            # multiply the cost; the examples are there to fix what each score looks like.
            examples = {
                criterion: [RubricExample(score=a.shown, output=outputs[a.id]) for a in chosen]
                for criterion, chosen in anchors.items()
            }
            judge = RubricJudge(
                self.rubric,
                self.model,
                criteria=self.criteria,
                examples=examples,
                methods="plain",
            )
            self._judges[key] = judge
        return judge


def _text_key(text: str) -> str:
    # Whitespace-normalised, so a source re-wrapped on the way in is still recognised.
    return hashlib.sha256(" ".join(text.split()).encode()).hexdigest()


def _source_key(ctx: Context) -> str:
    return _text_key(" ".join(ctx.context))


def _seed_of(seed: int, source_key: str, criterion: str) -> int:
    digest = hashlib.sha256(f"{seed}:{source_key}:{criterion}".encode()).digest()
    return int.from_bytes(digest[:8], "big")


def _on_shown_scale(item: RatingItem, criterion: str) -> float:
    """The human score mapped linearly from the dataset's scale onto the rubric's 1..5."""
    low, high = item.scale
    fraction = (item.human_scores[criterion] - low) / (high - low)
    return _SHOWN_SCALE[0] + fraction * (_SHOWN_SCALE[1] - _SHOWN_SCALE[0])


def _targets(low: float, high: float, k: int) -> list[float]:
    """k scores evenly spaced from `low` to `high` (one: the middle), so the examples span
    the range the other documents' scores reach."""
    if k == 1:
        return [(low + high) / 2]
    return [low + (high - low) * i / (k - 1) for i in range(k)]


def _rounded(value: float) -> int:
    # Half up, as RubricJudge rounds its expected scores: a human 2.5 is shown as a 3.
    return min(_SHOWN_SCALE[1], max(_SHOWN_SCALE[0], int(value + 0.5)))
