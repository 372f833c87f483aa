"""The viewer's SVG charts: parsed as XML, their marks land where their data says, every
text is escaped, and empty data says so."""

from datetime import UTC, datetime, timedelta
from xml.etree import ElementTree

import pytest
from markupsafe import Markup

from jurist.viewer._svg import (
    HEIGHT,
    MARGIN_BOTTOM,
    MARGIN_LEFT,
    MARGIN_RIGHT,
    MARGIN_TOP,
    WIDTH,
    confusion_matrix,
    histogram,
    intervals,
    line_chart,
    scatter,
)

NS = {"s": "http://www.w3.org/2000/svg"}
LEFT, RIGHT = MARGIN_LEFT, WIDTH - MARGIN_RIGHT
TOP, BOTTOM = MARGIN_TOP, HEIGHT - MARGIN_BOTTOM


def parse(markup: Markup) -> ElementTree.Element:
    assert isinstance(markup, Markup)
    return ElementTree.fromstring(str(markup))


def classed(root: ElementTree.Element, tag: str, name: str) -> list[ElementTree.Element]:
    return [
        element
        for element in root.iter(f"{{{NS['s']}}}{tag}")
        if name in element.get("class", "").split()
    ]


def texts(root: ElementTree.Element) -> list[str]:
    return ["".join(element.itertext()) for element in root.iter(f"{{{NS['s']}}}text")]


def test_scatter_puts_the_extremes_on_the_plot_areas_edges():
    root = parse(scatter([(0.0, 1.0), (2.0, 3.0), (4.0, 5.0)], x_label="human", y_label="judge"))
    dots = {(float(d.get("cx")), float(d.get("cy"))) for d in classed(root, "circle", "dot")}
    assert (LEFT, BOTTOM) in dots  # the min x and min y: bottom left
    assert (RIGHT, TOP) in dots  # the max x and max y: top right
    assert ((LEFT + RIGHT) / 2, (TOP + BOTTOM) / 2) in dots
    assert root.get("aria-label") == "judge against human"
    assert root.find("s:title", NS).text == "judge against human"
    assert "svg" in root.tag
    assert "plot" in root.get("class").split()


def test_scatter_with_given_ranges_and_a_diagonal():
    root = parse(
        scatter(
            [(1.0, 1.0), (3.0, 2.0), (9.0, 9.0)],
            x_label="human",
            y_label="judge",
            x_range=(1.0, 5.0),
            y_range=(1.0, 5.0),
            diagonal=True,
        )
    )
    dots = classed(root, "circle", "dot")
    assert len(dots) == 2  # (9, 9) is outside the ranges asked for
    assert (float(dots[1].get("cx")), float(dots[1].get("cy"))) == (
        LEFT + (RIGHT - LEFT) / 2,
        BOTTOM - (BOTTOM - TOP) / 4,
    )
    (line,) = classed(root, "line", "diagonal")
    ends = [float(line.get(name)) for name in ("x1", "y1", "x2", "y2")]
    assert ends == [LEFT, BOTTOM, RIGHT, TOP]
    assert {"1", "3", "5"} <= set(texts(root))  # ticks


def test_scatter_draws_a_point_met_many_times_once_and_larger():
    root = parse(scatter([(1.0, 2.0)] * 3 + [(2.0, 1.0)], x_label="h", y_label="j"))
    dots = classed(root, "circle", "dot")
    assert [d.get("data-count") for d in dots] == ["3", "1"]
    assert float(dots[0].get("r")) > float(dots[1].get("r"))
    assert "(3 items)" in "".join(dots[0].itertext())


def test_every_text_is_escaped():
    nasty = '<script>alert("x")</script> & co'
    charts = [
        scatter([(1.0, 2.0)], x_label=nasty, y_label=nasty, title=nasty),
        line_chart({nasty: [(1.0, 2.0), (2.0, 3.0)]}, x_label=nasty, y_label=nasty),
        histogram({nasty: [1.0], "other": [2.0]}, bins=2, range=(0.0, 2.0), x_label=nasty),
        confusion_matrix([[1, 0], [0, 1]], [nasty, "b"], x_label=nasty, y_label=nasty),
    ]
    for chart in charts:
        assert "<script>" not in chart
        root = parse(chart)  # parses: nothing broke out of its text
        assert not list(root.iter("script"))
        assert not list(root.iter(f"{{{NS['s']}}}script"))
        assert any(nasty in text for text in texts(root)) or root.get("aria-label") == nasty
        assert "style=" not in chart


@pytest.mark.parametrize(
    "chart",
    [
        scatter([], x_label="h", y_label="j"),
        line_chart({}, x_label="t", y_label="v"),
        line_chart({"a": []}, x_label="t", y_label="v"),
        histogram({"judge": [], "human": []}, bins=4, range=(0.0, 1.0), x_label="score"),
        confusion_matrix([[0, 0], [0, 0]], ["no", "yes"], x_label="judge", y_label="human"),
        confusion_matrix([], [], x_label="judge", y_label="human"),
        intervals([], x_label="value"),
        intervals([("pearson", [("before", None, None, None)])], x_label="value"),
    ],
)
def test_empty_data_says_no_data(chart):
    root = parse(chart)
    assert texts(root) == ["no data"]
    assert root.get("aria-label")


def test_line_chart_orders_points_and_names_each_series_in_a_legend():
    start = datetime(2026, 1, 1, tzinfo=UTC)
    root = parse(
        line_chart(
            {
                "alpha": [(start + timedelta(days=2), 0.0), (start, 1.0)],
                "beta": [(start + timedelta(days=1), 0.5)],
            },
            x_label="time",
            y_label="rating",
        )
    )
    paths = classed(root, "path", "line")
    assert len(paths) == 2
    alpha = paths[0].get("d").split()
    # Sorted by time: the first point is the earliest (left edge, at the top: y = 1).
    assert alpha[0] == f"M{LEFT},{TOP}"
    assert alpha[1].startswith("L")
    assert alpha[1].endswith(f",{BOTTOM}")
    legend = root.find("s:g[@class='legend']", NS)
    assert [t.text for t in legend.iter(f"{{{NS['s']}}}text")] == ["alpha", "beta"]
    assert {"s0", "s1"} == {p.get("class").split()[1] for p in paths}
    assert "Jan 01 00:00" in texts(root)  # two days: the day and the hour


def test_line_chart_of_plain_numbers():
    root = parse(line_chart({"a": [(0.0, 0.0), (10.0, 5.0)]}, x_label="round", y_label="elo"))
    (path,) = classed(root, "path", "line")
    assert path.get("d").startswith(f"M{LEFT},")
    assert {"0", "10"} <= set(texts(root))


def test_histogram_counts_each_group_in_its_bins():
    root = parse(
        histogram(
            {"judge": [0.0, 0.1, 0.9, 1.0, 1.0], "human": [0.5, 7.0]},
            bins=2,
            range=(0.0, 1.0),
            x_label="score",
        )
    )
    judge = root.find("s:g[@data-group='judge']", NS)
    human = root.find("s:g[@data-group='human']", NS)
    assert [b.get("data-count") for b in judge.findall("s:rect", NS)] == ["2", "3"]
    assert [b.get("data-count") for b in human.findall("s:rect", NS)] == ["1"]
    tallest = judge.findall("s:rect", NS)[1]
    assert float(tallest.get("y")) == TOP  # the largest count reaches the top
    assert float(tallest.get("y")) + float(tallest.get("height")) == BOTTOM
    assert "1 outside 0..1 not shown" in texts(root)
    with pytest.raises(ValueError, match="bins"):
        histogram({"a": [1.0]}, bins=0, range=(0.0, 1.0), x_label="x")
    with pytest.raises(ValueError, match="range"):
        histogram({"a": [1.0]}, bins=2, range=(1.0, 1.0), x_label="x")


def test_confusion_matrix_writes_each_count_in_its_cell_and_shades_by_count():
    root = parse(
        confusion_matrix([[5, 1], [0, 3]], ["fail", "pass"], x_label="judge", y_label="human")
    )
    cells = {
        (int(c.get("data-row")), int(c.get("data-column"))): c
        for c in root.findall("s:g[@class='cell']", NS)
    }
    assert {key: c.get("data-count") for key, c in cells.items()} == {
        (0, 0): "5",
        (0, 1): "1",
        (1, 0): "0",
        (1, 1): "3",
    }
    assert cells[(1, 1)].find("s:text", NS).text == "3"
    shade = {key: float(c.find("s:rect", NS).get("fill-opacity")) for key, c in cells.items()}
    assert shade[(0, 0)] > shade[(1, 1)] > shade[(0, 1)] > shade[(1, 0)]
    # The second row is below the first, the second column right of the first.
    assert float(cells[(1, 0)].find("s:rect", NS).get("y")) > float(
        cells[(0, 0)].find("s:rect", NS).get("y")
    )
    assert float(cells[(0, 1)].find("s:rect", NS).get("x")) > float(
        cells[(0, 0)].find("s:rect", NS).get("x")
    )
    with pytest.raises(ValueError, match="2x2"):
        confusion_matrix([[1, 2]], ["a", "b"], x_label="x", y_label="y")


def test_a_line_chart_at_one_instant_centres_it_on_a_time_axis_to_the_second():
    at = datetime(2026, 3, 4, 5, 6, 7, tzinfo=UTC)
    root = parse(line_chart({"judge": [(at, 0.5)]}, x_label="time", y_label="score"))
    (dot,) = classed(root, "circle", "dot")
    plot_right = WIDTH - MARGIN_RIGHT - 110  # the legend's room
    assert float(dot.get("cx")) == pytest.approx((LEFT + plot_right) / 2, abs=0.1)
    # A minute each side, the ends' ticks named to the second.
    assert {"05:05:07", "05:07:07"} <= set(texts(root))
    assert "2026" not in "".join(texts(root))  # not years of padding around one instant


def test_intervals_put_each_estimate_on_its_row_with_its_bar():
    root = parse(
        intervals(
            [
                ("coherence · Pearson", [("before", 0.5, 0.0, 1.0), ("after", 0.25, None, None)]),
                ("fluency · Pearson", [("after", None, None, None), ("before", 1.0, 0.9, 1.0)]),
            ],
            x_label="value",
            width=720,
        )
    )
    rows = root.findall("s:g[@class='row']", NS)
    assert len(rows) == 2
    first, second = rows
    before, after = first.findall("s:circle", NS)
    bar = first.find("s:line", NS)
    # The range 0..1 with a little room each side: 0.5 is the middle of the plot area.
    assert float(bar.get("x1")) < float(before.get("cx")) < float(bar.get("x2"))
    middle = (float(bar.get("x1")) + float(bar.get("x2"))) / 2
    assert float(before.get("cx")) == pytest.approx(middle, abs=0.1)
    assert float(after.get("cx")) < float(before.get("cx"))
    assert float(before.get("cy")) < float(after.get("cy"))  # before above after, each row
    assert len(first.findall("s:line", NS)) == 1  # "after" has no interval: no bar
    (only,) = second.findall("s:circle", NS)  # an undefined value: no dot
    assert only.get("data-series") == "before"
    assert float(only.get("cy")) == pytest.approx(float(before.get("cy")) + 26)
    assert float(only.get("cx")) > float(before.get("cx"))
    legend = root.find("s:g[@class='legend']", NS)
    assert [t.text for t in legend.iter(f"{{{NS['s']}}}text")] == ["before", "after"]
    assert int(root.get("height")) == MARGIN_TOP + 2 * 26 + MARGIN_BOTTOM
