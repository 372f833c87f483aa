"""Quotes located in the source: character for character, else word for word as the judges
check a quote (case, spacing, punctuation and typography aside, an ellipsis for omitted
text), never a word inside another; the passages cut into marked segments, overlaps
carrying every claim that covers them."""

from jurist.viewer._item_marks import Located, locate, marked

SOURCE = "The bridge opened in 1932.\nIt carries “two lanes” and a rail-line over the river."


def test_a_quote_held_as_it_is_is_found_where_it_is():
    where = locate("opened in 1932", ["Nothing here.", SOURCE])
    assert where == Located(passage=1, spans=[(11, 25)])


def test_a_quote_is_found_word_for_word_whatever_its_case_spacing_and_quote_marks():
    where = locate('it  CARRIES "two lanes"', [SOURCE])
    assert where is not None
    ((start, end),) = where.spans
    assert SOURCE[start:end] == "It carries “two lanes"


def test_an_ellipsis_marks_each_piece_in_order():
    where = locate("The bridge ... over the river", [SOURCE])
    assert where is not None
    assert [SOURCE[s:e] for s, e in where.spans] == ["The bridge", "over the river"]
    assert locate("over the river ... The bridge", [SOURCE]) is None  # out of order


def test_a_quote_the_source_does_not_hold_is_not_found():
    assert locate("opened in 1933", [SOURCE]) is None
    assert locate("lane", [SOURCE]) is None  # a word inside "lanes" is not the word
    assert locate("   ", [SOURCE]) is None


def test_passages_are_cut_into_segments_marked_by_the_claims_that_quote_them():
    first = Located(passage=0, spans=[(0, 10)])  # "The bridge"
    second = Located(passage=0, spans=[(4, 25)])  # "bridge opened in 1932"
    (passage,) = marked([SOURCE], [(first, True), (second, False), (None, True)])
    segments = [(s.text, s.claims, s.supported) for s in passage.segments]
    assert segments[:3] == [
        ("The ", [1], True),
        ("bridge", [1, 2], False),
        (" opened in 1932", [2], False),
    ]
    assert "".join(s.text for s in passage.segments) == SOURCE
    assert segments[3][1] == []
