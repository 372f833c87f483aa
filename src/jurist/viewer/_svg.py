"""The viewer's charts: small pure functions that draw SVG markup on the server, to be put
inline in a page. No style attributes (the pages' Content-Security-Policy refuses inline
styles): the look comes from classes in viewer.css (`svg.plot`, `.axis`, `.grid`, `.dot`,
`.line`, `.bar`, `.diagonal`, and the series' `s0`..`s5`) and from presentation attributes.
Every text drawn is escaped; every chart has a `<title>` and an `aria-label`, and says
"no data" when it has none."""

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime

from markupsafe import Markup, escape

WIDTH = 480
HEIGHT = 320
# Room around the plot area for the title (top), the y ticks and label (left), the x ticks
# and label (bottom) and a legend (right, only when a chart has one).
MARGIN_LEFT = 60
MARGIN_RIGHT = 16
MARGIN_TOP = 30
MARGIN_BOTTOM = 46
LEGEND_WIDTH = 110
SERIES_CLASSES = 6  # s0..s5 in viewer.css; more series reuse them in turn
TICKS = 5
DOT_RADIUS = 3.5
TIME_PAD = 60.0  # seconds each side of a time axis whose points are all at one instant

Number = float | int


@dataclass(frozen=True)
class Area:
    """The plot area inside the chart, in the chart's pixels (y grows downwards)."""

    left: float
    top: float
    right: float
    bottom: float

    @property
    def width(self) -> float:
        return self.right - self.left

    @property
    def height(self) -> float:
        return self.bottom - self.top


@dataclass(frozen=True)
class Scale:
    """A linear map of the data's [low, high] onto pixels [start, end]."""

    low: float
    high: float
    start: float
    end: float

    def __call__(self, value: float) -> float:
        return self.start + (value - self.low) / (self.high - self.low) * (self.end - self.start)


def area(width: int, height: int, *, legend: bool = False) -> Area:
    right = width - MARGIN_RIGHT - (LEGEND_WIDTH if legend else 0)
    return Area(MARGIN_LEFT, MARGIN_TOP, right, height - MARGIN_BOTTOM)


def scatter(
    points: Sequence[tuple[float, float]],
    *,
    x_label: str,
    y_label: str,
    x_range: tuple[float, float] | None = None,
    y_range: tuple[float, float] | None = None,
    diagonal: bool = False,
    title: str | None = None,
    width: int = WIDTH,
    height: int = HEIGHT,
) -> Markup:
    """One dot per distinct point (a point met n times is one larger dot whose tooltip says
    n: scores on a rubric's scale meet often); `diagonal` draws y = x, where a judge that
    agrees with the humans would put every dot."""
    name = title or f"{y_label} against {x_label}"
    parts = _open(name, width, height, "scatter")
    if not points:
        return _empty(parts, width, height)
    plot = area(width, height)
    xs = [x for x, _ in points]
    ys = [y for _, y in points]
    x_low, x_high = x_range or _span(xs)
    y_low, y_high = y_range or _span(ys)
    if diagonal and x_range is None and y_range is None:
        # One range for both axes, so that the diagonal is the square's.
        x_low = y_low = min(x_low, y_low)
        x_high = y_high = max(x_high, y_high)
    sx = Scale(x_low, x_high, plot.left, plot.right)
    sy = Scale(y_low, y_high, plot.bottom, plot.top)
    parts += _axes(plot, sx, sy, x_label, y_label)
    parts += _heading(width, title)
    if diagonal:
        low, high = max(x_low, y_low), min(x_high, y_high)
        if low < high:
            parts.append(_line("diagonal", sx(low), sy(low), sx(high), sy(high)))
    met: dict[tuple[float, float], int] = {}
    for point in points:
        met[point] = met.get(point, 0) + 1
    for (x, y), count in met.items():
        if not (x_low <= x <= x_high and y_low <= y <= y_high):
            continue  # outside the ranges asked for: not drawn over the axes
        radius = DOT_RADIUS * math.sqrt(min(count, 16))
        tip = f"{x_label} {_fmt(x)}, {y_label} {_fmt(y)}"
        if count > 1:
            tip += f" ({count} items)"
        parts.append(
            f'<circle class="dot" cx="{_px(sx(x))}" cy="{_px(sy(y))}" r="{_px(radius)}" '
            f'data-count="{count}"><title>{escape(tip)}</title></circle>'
        )
    return _close(parts)


def line_chart(
    series: Mapping[str, Sequence[tuple[datetime | float, float]]],
    *,
    x_label: str,
    y_label: str,
    title: str | None = None,
    width: int = WIDTH,
    height: int = HEIGHT,
) -> Markup:
    """Several named series (x a number or a time), each a line with a dot at each point,
    and a legend naming them. Times are drawn in UTC."""
    name = title or f"{y_label} over {x_label}"
    parts = _open(name, width, height, "line-chart")
    drawn = {label: list(points) for label, points in series.items() if points}
    if not drawn:
        return _empty(parts, width, height)
    timed = any(isinstance(x, datetime) for points in drawn.values() for x, _ in points)
    plot = area(width, height, legend=True)
    xs = [_number(x) for points in drawn.values() for x, _ in points]
    ys = [y for points in drawn.values() for _, y in points]
    sx = Scale(*_span(xs, TIME_PAD if timed else None), plot.left, plot.right)
    sy = Scale(*_span(ys), plot.bottom, plot.top)
    parts += _axes(plot, sx, sy, x_label, y_label, timed=timed)
    parts += _heading(width, title)
    for index, (label, points) in enumerate(drawn.items()):
        kind = f"s{index % SERIES_CLASSES}"
        ordered = sorted(points, key=lambda point: _number(point[0]))
        path = " ".join(
            f"{'M' if at == 0 else 'L'}{_px(sx(_number(x)))},{_px(sy(y))}"
            for at, (x, y) in enumerate(ordered)
        )
        parts.append(
            f'<g class="series {kind}" data-series="{escape(label)}">'
            f'<path class="line {kind}" d="{path}"><title>{escape(label)}</title></path>'
        )
        for x, y in ordered:
            when = _number(x)
            shown = datetime.fromtimestamp(when, UTC).isoformat() if timed else _fmt(when)
            tip = f"{label}: {shown}, {_fmt(y)}"
            parts.append(
                f'<circle class="dot {kind}" cx="{_px(sx(_number(x)))}" cy="{_px(sy(y))}" '
                f'r="{_px(DOT_RADIUS - 1)}"><title>{escape(tip)}</title></circle>'
            )
        parts.append("</g>")
    parts += _legend(plot, list(drawn))
    return _close(parts)


def histogram(
    groups: Mapping[str, Sequence[float]],
    *,
    bins: int,
    range: tuple[float, float],
    x_label: str,
    title: str | None = None,
    width: int = WIDTH,
    height: int = HEIGHT,
) -> Markup:
    """How many values of each group fall in each of `bins` equal bins over `range`, the
    groups' bars side by side in each bin (judge beside human). The last bin holds its
    upper edge; values outside `range` are left out, and the tooltip of the chart says how
    many."""
    if bins < 1:
        raise ValueError(f"bins must be at least 1, not {bins}")
    low, high = range
    if not high > low:
        raise ValueError(f"range must go upwards, not {low}..{high}")
    name = title or f"distribution of {x_label}"
    parts = _open(name, width, height, "histogram")
    if not any(groups.values()):
        return _empty(parts, width, height)
    counts: dict[str, list[int]] = {}
    outside = 0
    for label, values in groups.items():
        counted = [0] * bins
        for value in values:
            if not low <= value <= high:
                outside += 1
                continue
            counted[min(int((value - low) / (high - low) * bins), bins - 1)] += 1
        counts[label] = counted
    plot = area(width, height, legend=len(groups) > 1)
    sx = Scale(low, high, plot.left, plot.right)
    sy = Scale(0, max(1, *(max(c) for c in counts.values())), plot.bottom, plot.top)
    parts += _axes(plot, sx, sy, x_label, "count", integer_y=True)
    parts += _heading(width, title)
    step = (high - low) / bins
    slot = (plot.width / bins) * 0.9 / len(counts)
    for index, (label, counted) in enumerate(counts.items()):
        kind = f"s{index % SERIES_CLASSES}"
        parts.append(f'<g class="group {kind}" data-group="{escape(label)}">')
        for at, count in enumerate(counted):
            if count == 0:
                continue
            x = sx(low + at * step) + (plot.width / bins) * 0.05 + index * slot
            top = sy(count)
            tip = f"{label}: {count} in {_fmt(low + at * step)}..{_fmt(low + (at + 1) * step)}"
            parts.append(
                f'<rect class="bar {kind}" x="{_px(x)}" y="{_px(top)}" width="{_px(slot)}" '
                f'height="{_px(plot.bottom - top)}" data-count="{count}">'
                f"<title>{escape(tip)}</title></rect>"
            )
        parts.append("</g>")
    if len(counts) > 1:
        parts += _legend(plot, list(counts), shape="bar")
    if outside:
        parts.append(
            f'<text class="note" x="{_px(plot.right)}" y="{_px(plot.top - 6)}" '
            f'text-anchor="end">{outside} outside {_fmt(low)}..{_fmt(high)} not shown</text>'
        )
    return _close(parts)


def confusion_matrix(
    matrix: Sequence[Sequence[int]],
    labels: Sequence[str],
    *,
    x_label: str,
    y_label: str,
    title: str | None = None,
    width: int = 360,
    height: int = 320,
) -> Markup:
    """`matrix[row][column]`: how many items had `labels[row]` on the y axis (the truth)
    and `labels[column]` on the x axis; each cell shaded by its count and the count written
    in it."""
    if len(matrix) != len(labels) or any(len(row) != len(labels) for row in matrix):
        raise ValueError(f"the matrix must be {len(labels)}x{len(labels)}, as its labels")
    name = title or f"{y_label} against {x_label}"
    parts = _open(name, width, height, "confusion")
    if not labels or not any(any(row) for row in matrix):
        return _empty(parts, width, height)
    plot = area(width, height)
    side = min(plot.width, plot.height)
    cell = side / len(labels)
    most = max(max(row) for row in matrix)
    left, top = plot.left, plot.top
    for row, (truth, counts) in enumerate(zip(labels, matrix, strict=True)):
        parts.append(
            f'<text class="tick" x="{_px(left - 6)}" y="{_px(top + (row + 0.5) * cell)}" '
            f'text-anchor="end" dominant-baseline="middle">{escape(truth)}</text>'
        )
        for column, (said, count) in enumerate(zip(labels, counts, strict=True)):
            x, y = left + column * cell, top + row * cell
            shade = 0.06 + 0.84 * count / most
            tip = f"{y_label} {truth}, {x_label} {said}: {count}"
            parts.append(
                f'<g class="cell" data-row="{row}" data-column="{column}" data-count="{count}">'
                f'<rect x="{_px(x)}" y="{_px(y)}" width="{_px(cell)}" height="{_px(cell)}" '
                f'fill="#2d3a8c" fill-opacity="{shade:.2f}" stroke="#ffffff"/>'
                f'<text class="{"count dark" if shade > 0.5 else "count"}" '
                f'x="{_px(x + cell / 2)}" y="{_px(y + cell / 2)}" text-anchor="middle" '
                f'dominant-baseline="middle">{count}</text>'
                f"<title>{escape(tip)}</title></g>"
            )
    for column, said in enumerate(labels):
        parts.append(
            f'<text class="tick" x="{_px(left + (column + 0.5) * cell)}" '
            f'y="{_px(top + side + 14)}" text-anchor="middle">{escape(said)}</text>'
        )
    parts.append(
        f'<text class="label" x="{_px(left + side / 2)}" y="{_px(top + side + 32)}" '
        f'text-anchor="middle">{escape(x_label)}</text>'
    )
    parts.append(_y_label(top + side / 2, y_label))
    parts += _heading(width, title)
    return _close(parts)


# One estimate of an interval chart: its series' name, the value and the interval's ends
# (None: undefined, or no interval).
Estimated = tuple[str, float | None, float | None, float | None]
ROW_HEIGHT = 26
LABEL_ROOM = 220


def intervals(
    rows: Sequence[tuple[str, Sequence[Estimated]]],
    *,
    x_label: str,
    title: str | None = None,
    width: int = 720,
) -> Markup:
    """Estimates with their intervals, a row each (a label, then each series' estimate: a
    dot at the value on a bar from the low to the high end), one above the other within a
    row: two reports' statistics side by side. Its height grows with the rows."""
    name = title or f"{x_label} with intervals"
    height = MARGIN_TOP + max(1, len(rows)) * ROW_HEIGHT + MARGIN_BOTTOM
    parts = _open(name, width, height, "intervals")
    numbers = [
        number
        for _, estimates in rows
        for _, *values in estimates
        for number in values
        if number is not None
    ]
    if not numbers:
        return _empty(parts, width, height)
    series = list(dict.fromkeys(label for _, estimates in rows for label, *_ in estimates))
    plot = Area(LABEL_ROOM, MARGIN_TOP, width - MARGIN_RIGHT - LEGEND_WIDTH, height - MARGIN_BOTTOM)
    low, high = _span(numbers)
    pad = (high - low) * 0.04
    sx = Scale(low - pad, high + pad, plot.left, plot.right)
    for value in _ticks(sx.low, sx.high):
        parts.append(_line("grid", sx(value), plot.top, sx(value), plot.bottom))
        parts.append(
            f'<text class="tick" x="{_px(sx(value))}" y="{_px(plot.bottom + 14)}" '
            f'text-anchor="middle">{_fmt(value)}</text>'
        )
    parts.append(_line("axis", plot.left, plot.bottom, plot.right, plot.bottom))
    parts.append(
        f'<text class="label" x="{_px((plot.left + plot.right) / 2)}" '
        f'y="{_px(plot.bottom + 34)}" text-anchor="middle">{escape(x_label)}</text>'
    )
    step = ROW_HEIGHT / (len(series) + 1)
    for at, (label, estimates) in enumerate(rows):
        top = plot.top + at * ROW_HEIGHT
        parts.append(
            f'<g class="row" data-row="{at}"><text class="tick" x="{_px(plot.left - 8)}" '
            f'y="{_px(top + ROW_HEIGHT / 2)}" text-anchor="end" dominant-baseline="middle">'
            f"{escape(_clip(label, 38))}<title>{escape(label)}</title></text>"
        )
        for which, middle, end_low, end_high in estimates:
            kind = f"s{series.index(which) % SERIES_CLASSES}"
            y = top + step * (series.index(which) + 1)
            tip = f"{label}, {which}: " + ("undefined" if middle is None else _fmt(middle))
            if end_low is not None and end_high is not None:
                tip += f" [{_fmt(end_low)}, {_fmt(end_high)}]"
                parts.append(_line(f"line interval {kind}", sx(end_low), y, sx(end_high), y))
            if middle is not None:
                parts.append(
                    f'<circle class="dot {kind}" cx="{_px(sx(middle))}" cy="{_px(y)}" '
                    f'r="{_px(DOT_RADIUS)}" data-series="{escape(which)}">'
                    f"<title>{escape(tip)}</title></circle>"
                )
        parts.append("</g>")
    parts += _legend(plot, series)
    parts += _heading(width, title)
    return _close(parts)


# ---- drawing ----


def _open(name: str, width: int, height: int, kind: str) -> list[str]:
    label = escape(name)
    return [
        f'<svg xmlns="http://www.w3.org/2000/svg" class="plot {kind}" width="{width}" '
        f'height="{height}" viewBox="0 0 {width} {height}" role="img" aria-label="{label}">'
        f"<title>{label}</title>"
    ]


def _close(parts: list[str]) -> Markup:
    parts.append("</svg>")
    return Markup("".join(parts))


def _empty(parts: list[str], width: int, height: int) -> Markup:
    parts.append(
        f'<text class="empty" x="{width / 2:g}" y="{height / 2:g}" text-anchor="middle">'
        "no data</text>"
    )
    return _close(parts)


def _axes(
    plot: Area,
    sx: Scale,
    sy: Scale,
    x_label: str,
    y_label: str,
    *,
    timed: bool = False,
    integer_y: bool = False,
) -> list[str]:
    parts: list[str] = []
    x_ticks = _time_ticks(sx.low, sx.high) if timed else _ticks(sx.low, sx.high)
    for value in x_ticks:
        x = _px(sx(value))
        parts.append(_line("grid", sx(value), plot.top, sx(value), plot.bottom))
        parts.append(
            f'<text class="tick" x="{x}" y="{_px(plot.bottom + 14)}" text-anchor="middle">'
            f"{escape(_tick_label(value, timed, sx.high - sx.low))}</text>"
        )
    for value in _ticks(sy.low, sy.high, integer=integer_y):
        y = _px(sy(value))
        parts.append(_line("grid", plot.left, sy(value), plot.right, sy(value)))
        parts.append(
            f'<text class="tick" x="{_px(plot.left - 6)}" y="{y}" text-anchor="end" '
            f'dominant-baseline="middle">{_fmt(value)}</text>'
        )
    parts.append(_line("axis", plot.left, plot.bottom, plot.right, plot.bottom))
    parts.append(_line("axis", plot.left, plot.top, plot.left, plot.bottom))
    parts.append(
        f'<text class="label" x="{_px((plot.left + plot.right) / 2)}" '
        f'y="{_px(plot.bottom + 34)}" text-anchor="middle">{escape(x_label)}</text>'
    )
    parts.append(_y_label((plot.top + plot.bottom) / 2, y_label))
    return parts


def _line(kind: str, x1: float, y1: float, x2: float, y2: float) -> str:
    return f'<line class="{kind}" x1="{_px(x1)}" y1="{_px(y1)}" x2="{_px(x2)}" y2="{_px(y2)}"/>'


def _y_label(middle: float, label: str) -> str:
    return (
        f'<text class="label" x="14" y="{_px(middle)}" text-anchor="middle" '
        f'transform="rotate(-90 14 {_px(middle)})">{escape(label)}</text>'
    )


def _heading(width: int, title: str | None) -> list[str]:
    if not title:
        return []
    return [
        f'<text class="heading" x="{_px(width / 2)}" y="18" text-anchor="middle">'
        f"{escape(title)}</text>"
    ]


def _legend(plot: Area, labels: list[str], shape: str = "line") -> list[str]:
    parts = ['<g class="legend">']
    for index, label in enumerate(labels):
        kind = f"s{index % SERIES_CLASSES}"
        x, y = plot.right + 12, plot.top + 6 + index * 18
        if shape == "bar":
            parts.append(
                f'<rect class="bar {kind}" x="{_px(x)}" y="{_px(y - 5)}" width="14" height="10"/>'
            )
        else:
            parts.append(_line(f"line {kind}", x, y, x + 14, y))
        parts.append(
            f'<text class="legend-label" x="{_px(x + 20)}" y="{_px(y)}" '
            f'dominant-baseline="middle">{escape(_clip(label, 14))}'
            f"<title>{escape(label)}</title></text>"
        )
    parts.append("</g>")
    return parts


# ---- numbers ----


def _span(values: Sequence[float], pad: float | None = None) -> tuple[float, float]:
    """The data's range; a single value gets room around it (`pad` each side, by default a
    tenth of it) so that it has a place."""
    low, high = min(values), max(values)
    if high > low:
        return low, high
    room = pad if pad is not None else abs(low) * 0.1 or 1.0
    return low - room, high + room


def _ticks(low: float, high: float, *, integer: bool = False) -> list[float]:
    """About TICKS round values (steps of 1, 2 or 5 times a power of ten) within the range."""
    raw = (high - low) / TICKS
    power = 10 ** math.floor(math.log10(raw))
    step = next(factor * power for factor in (1, 2, 5, 10) if factor * power >= raw)
    if integer:
        step = max(1.0, float(round(step)))
    first = math.ceil(low / step - 1e-9) * step
    ticks: list[float] = []
    at = 0
    while (value := first + at * step) <= high + step * 1e-9:
        ticks.append(round(value, 12))
        at += 1
    return ticks


def _number(x: datetime | float) -> float:
    if isinstance(x, datetime):
        return (x if x.tzinfo else x.replace(tzinfo=UTC)).timestamp()
    return float(x)


def _time_ticks(low: float, high: float) -> list[float]:
    """Times have no round steps worth finding: four evenly spaced, the ends included."""
    return [low + (high - low) * at / 3 for at in range(4)]


def _tick_label(value: float, timed: bool, span: float = 0.0) -> str:
    if not timed:
        return _fmt(value)
    if span > 300 * 86400:
        shape = "%Y-%m-%d"
    elif span > 4 * 86400:
        shape = "%b %d"
    elif span > 86400:
        shape = "%b %d %H:%M"
    elif span > 2 * 3600:
        shape = "%H:%M"
    else:
        shape = "%H:%M:%S"
    return datetime.fromtimestamp(value, UTC).strftime(shape)


def _fmt(value: float) -> str:
    """A number short enough for a tick: up to 3 significant digits, never "-0"."""
    if value == 0:
        return "0"
    text = f"{value:.3g}"
    return "0" if text in ("-0", "0") else text


def _px(value: float) -> str:
    text = f"{value:.1f}".rstrip("0").rstrip(".")
    return "0" if text == "-0" else text


def _clip(text: str, most: int) -> str:
    return text if len(text) <= most else text[: most - 1] + "…"
