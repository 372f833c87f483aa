"""The anchored method: human-scored examples from the other documents of the calibration
data, leave-one-document-out, with a fake model that answers every rubric prompt."""

import json
import re

import pytest

from jurist import Context
from jurist.calibration import Anchored, AnchoredJudge, calibrate
from jurist.data import load_labelled
from jurist.llm import Capabilities, Request, Response
from jurist.rubrics import get_rubric
from scripted import answer

RUBRIC = get_rubric("summarization")
GOAL = "Summarise the article."


class RubricAnswers:
    """Scores every criterion 4 (a stated score) and keeps each prompt."""

    name = "test:rubric-answers"
    capabilities = Capabilities(json_schema=True)

    def __init__(self) -> None:
        self.requests: list[Request] = []

    async def complete(self, request: Request) -> Response:
        self.requests.append(request)
        payload = {"reasoning": "Read it.", "score": 4, "confidence": 0.7}
        return answer(json.dumps(payload))


def rows(documents: int = 5, per_document: int = 3, scale: tuple[int, int] = (1, 5)) -> list[dict]:
    """`documents` sources with `per_document` summaries each; human scores cycle over the
    scale so every document has low and high ones."""
    low, high = scale
    made = []
    for d in range(documents):
        source = f"Article {d}: the council of town {d} voted on the budget for year {2000 + d}."
        for s in range(per_document):
            step = (d * per_document + s) % 5
            value = low + (high - low) * step / 4
            made.append(
                {
                    "id": f"d{d}-s{s}",
                    "doc_id": f"d{d}",
                    "source": source,
                    "output": f"Summary {s} of article {d}.",
                    "human_scores": {"coherence": value, "fluency": high - (value - low)},
                    "scale": [low, high],
                }
            )
    return made


def dataset_of(tmp_path, records):
    path = tmp_path / "ratings.jsonl"
    path.write_text("\n".join(json.dumps(r) for r in records))
    return load_labelled(path)


def prepared(dataset, per_criterion: int = 3) -> Anchored:
    method = Anchored(per_criterion)
    method.prepare(dataset)
    return method


def context_of(item) -> Context:
    return Context(GOAL, output=item.output, context=item.source)


async def test_no_example_ever_comes_from_the_evaluated_items_document(tmp_path):
    dataset = dataset_of(tmp_path, rows())
    model = RubricAnswers()
    judge = prepared(dataset).judge(RUBRIC, ["coherence", "fluency"], model)
    by_id = {item.id: item for item in dataset.ratings}

    for item in dataset.ratings:
        asked = len(model.requests)
        judgment = await judge.judge(context_of(item))
        anchors = judgment.metadata["anchors"]
        assert set(anchors) == {"coherence", "fluency"}
        for shown in anchors.values():
            assert len(shown) == 3
            for anchor in shown:
                assert anchor["doc_id"] != item.doc_id
                assert by_id[anchor["id"]].source != item.source
        # And what the model saw: no summary of the item's own document among the examples.
        prompts = [r.messages[-1].content for r in model.requests[asked:]]
        assert len(prompts) == 2
        siblings = [o.output for o in dataset.ratings if o.doc_id == item.doc_id]
        for prompt in prompts:
            examples = prompt.split("Scored examples of this criterion:")[1]
            assert examples.count("Example scored") == 3
            assert not any(sibling in examples for sibling in siblings)


async def test_the_examples_span_the_other_documents_scores_lowest_first(tmp_path):
    dataset = dataset_of(tmp_path, rows())
    judge = prepared(dataset).judge(RUBRIC, ["coherence"], RubricAnswers())
    assert isinstance(judge, AnchoredJudge)
    for item in dataset.ratings:
        others = [o.human_scores["coherence"] for o in dataset.ratings if o.doc_id != item.doc_id]
        shown = judge.anchors_for(context_of(item))["coherence"]
        humans = [a.human for a in shown]
        assert humans[0] == min(others)
        assert humans[-1] == max(others)
        assert humans == sorted(humans)
        assert len({a.doc_id for a in shown}) == 3  # spread over documents too, when it can be


async def test_scores_are_shown_as_integers_on_the_rubric_scale(tmp_path):
    # A 0..10 dataset: 2.5 maps to 2.0, 7.5 to 4.0, 10 to 5.
    dataset = dataset_of(tmp_path, rows(scale=(0, 10)))
    model = RubricAnswers()
    judge = prepared(dataset).judge(RUBRIC, ["coherence"], model)
    item = dataset.ratings[0]
    judgment = await judge.judge(context_of(item))
    for anchor in judgment.metadata["anchors"]["coherence"]:
        assert anchor["shown"] == min(5, int(1 + 4 * anchor["human"] / 10 + 0.5))
    shown = re.findall(r"Example scored (\S+):", model.requests[-1].messages[-1].content)
    assert shown == [str(a["shown"]) for a in judgment.metadata["anchors"]["coherence"]]
    assert shown == ["1", "3", "5"]


async def test_the_same_context_gets_the_same_examples_in_every_run(tmp_path):
    dataset = dataset_of(tmp_path, rows(documents=8))
    first, second = RubricAnswers(), RubricAnswers()
    judges = [
        prepared(dataset).judge(RUBRIC, ["coherence", "fluency"], model)
        for model in (first, second)
    ]
    for item in dataset.ratings:
        runs = [await judge.judge(context_of(item)) for judge in judges]
        assert runs[0].metadata["anchors"] == runs[1].metadata["anchors"]
    assert [r.messages for r in first.requests] == [r.messages for r in second.requests]
    # Seeded per source, not one fixed set for all: two documents see different examples.
    judge = judges[0]
    assert isinstance(judge, AnchoredJudge)
    chosen = {
        tuple(a.id for a in judge.anchors_for(context_of(item))["fluency"])
        for item in dataset.ratings
    }
    assert len(chosen) > 1


async def test_more_examples_asked_than_other_documents_have_shows_them_all(tmp_path):
    dataset = dataset_of(tmp_path, rows(documents=3, per_document=2))
    judge = prepared(dataset, per_criterion=10).judge(RUBRIC, ["coherence"], RubricAnswers())
    for item in dataset.ratings:
        judgment = await judge.judge(context_of(item))
        shown = judgment.metadata["anchors"]["coherence"]
        assert sorted(a["id"] for a in shown) == sorted(
            o.id for o in dataset.ratings if o.doc_id != item.doc_id
        )


async def test_one_document_alone_has_no_examples_and_is_judged_plain(tmp_path):
    dataset = dataset_of(tmp_path, rows(documents=1))
    model = RubricAnswers()
    judge = prepared(dataset).judge(RUBRIC, ["coherence"], model)
    judgment = await judge.judge(context_of(dataset.ratings[0]))
    assert judgment.metadata["anchors"] == {"coherence": ()}
    assert "Scored examples" not in model.requests[0].messages[-1].content
    assert Anchored().read(judgment) is not None


async def test_a_reworded_source_or_a_named_document_is_still_excluded(tmp_path):
    dataset = dataset_of(tmp_path, rows(documents=4))
    judge = prepared(dataset, per_criterion=20).judge(RUBRIC, ["coherence"], RubricAnswers())
    item = dataset.ratings[0]

    rewrapped = Context(
        GOAL, output="A new summary.", context="  " + item.source.replace(" ", "\n")
    )
    assert item.doc_id not in {a.doc_id for a in judge.anchors_for(rewrapped)["coherence"]}

    named = Context(
        GOAL, output="A new summary.", context="Another text.", metadata={"doc_id": "d2"}
    )
    assert "d2" not in {a.doc_id for a in judge.anchors_for(named)["coherence"]}

    # Its own summary under an edited source still gives its document away.
    edited = Context(GOAL, output=item.output, context=item.source + " (edited)")
    assert item.doc_id not in {a.doc_id for a in judge.anchors_for(edited)["coherence"]}

    unrelated = Context(GOAL, output="A new summary.", context="Another text.")
    assert len(judge.anchors_for(unrelated)["coherence"]) == len(dataset.ratings)


def test_a_method_without_its_dataset_or_with_no_examples_is_refused():
    with pytest.raises(ValueError, match="prepare"):
        Anchored().judge(RUBRIC, ["coherence"], RubricAnswers())
    with pytest.raises(ValueError, match="per_criterion"):
        Anchored(0)


async def test_calibrate_with_anchors_end_to_end(tmp_path):
    dataset = dataset_of(tmp_path, rows(documents=4, per_document=2))
    model = RubricAnswers()
    method = Anchored(2)
    done = await calibrate(
        dataset, "summarization", dimensions=["coherence"], model=model, method=method, n_boot=50
    )
    assert done.report.judge.startswith("anchored (coherence)")
    points = done.report.dimensions["coherence"].points
    assert [p.id for p in points] == [item.id for item in dataset.ratings]
    assert all(p.judge == pytest.approx(4.0) for p in points)
    docs = {item.id: item.doc_id for item in dataset.ratings}
    for item_id, judgment in done.run.judgments.items():
        shown = judgment.metadata["anchors"]["coherence"]
        assert len(shown) == 2
        assert all(docs[a["id"]] != docs[item_id] for a in shown)
    assert len(model.requests) == len(dataset.ratings)
