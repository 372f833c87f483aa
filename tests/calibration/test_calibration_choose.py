import pytest

from jurist.calibration import choose_out_of_fold

GROUPS = ["a"] * 4 + ["b"] * 4 + ["c"] * 4
HUMAN = [1.0, 2.0, 3.0, 4.0] * 3


def test_the_candidate_that_ranks_the_other_documents_best_scores_each_document() -> None:
    good = [1.0, 2.0, 3.0, 4.0] * 3
    bad = [4.0, 3.0, 2.0, 1.0] * 3
    chosen = choose_out_of_fold({"bad": bad, "good": good}, HUMAN, groups=GROUPS)
    assert chosen.choices == {"a": "good", "b": "good", "c": "good"}
    assert chosen.predictions == good
    assert chosen.counts() == {"good": 3}


def test_a_document_never_chooses_by_its_own_items() -> None:
    # "local" ranks document a perfectly and the others backwards; "global" the opposite.
    # Chosen on all the data "global" would win everywhere; out of fold, document a must
    # still be scored by what the other documents favour, whatever a's own items say.
    local = [1.0, 2.0, 3.0, 4.0] + [4.0, 3.0, 2.0, 1.0] * 2
    global_ = [4.0, 3.0, 2.0, 1.0] + [1.0, 2.0, 3.0, 4.0] * 2
    chosen = choose_out_of_fold({"local": local, "global": global_}, HUMAN, groups=GROUPS)
    assert chosen.choices["a"] == "global"
    assert chosen.predictions[:4] == [4.0, 3.0, 2.0, 1.0]


def test_a_candidate_that_cannot_be_ranked_is_never_chosen() -> None:
    constant = [3.0] * 12
    sparse: list[float | None] = [None] * 12
    ok = [1.0, 2.0, 2.0, 4.0] * 3
    chosen = choose_out_of_fold(
        {"constant": constant, "sparse": sparse, "ok": ok}, HUMAN, groups=GROUPS
    )
    assert set(chosen.choices.values()) == {"ok"}


def test_a_document_no_candidate_can_rank_gets_no_prediction() -> None:
    chosen = choose_out_of_fold({"constant": [3.0] * 12}, HUMAN, groups=GROUPS)
    assert chosen.choices == {}
    assert chosen.predictions == [None] * 12


def test_lengths_that_disagree_name_the_candidate() -> None:
    with pytest.raises(ValueError, match=r"candidates\['short'\] has 3 items but human has 12"):
        choose_out_of_fold({"short": [1.0, 2.0, 3.0]}, HUMAN, groups=GROUPS)
    with pytest.raises(ValueError, match="groups has 2 items"):
        choose_out_of_fold({"x": HUMAN}, HUMAN, groups=["a", "b"])
    with pytest.raises(ValueError, match="candidates: none given"):
        choose_out_of_fold({}, HUMAN, groups=GROUPS)


def test_a_candidate_that_scores_none_of_a_document_is_not_chosen_for_it() -> None:
    # "best" ranks documents b and c perfectly but never ran on a; a must get "ok".
    best: list[float | None] = [None] * 4 + [1.0, 2.0, 3.0, 4.0] * 2
    ok = [1.0, 2.0, 4.0, 3.0] * 3
    chosen = choose_out_of_fold({"best": best, "ok": ok}, HUMAN, groups=GROUPS)
    assert chosen.choices == {"a": "ok", "b": "best", "c": "best"}
    assert chosen.predictions[:4] == [1.0, 2.0, 4.0, 3.0]
