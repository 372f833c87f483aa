"""The calibration pages and their JSON over HTTP, on real stored calibration runs: the list,
one report's statistics and plots, two reports compared, what is refused, and a service
without the calibration extra."""

import json
from xml.etree import ElementTree

import httpx
import pytest
from seed_calibration import COHERENCE, off_loop, seed

from jurist.calibration import (
    REPORT_KEY,
    CalibrationReport,
    compare_reports,
    pairwise_report,
    stored_report,
)
from jurist.data import load_labelled
from jurist.store import RecordStore

SVG = "{http://www.w3.org/2000/svg}"


@pytest.fixture(scope="module")
def seeded(tmp_path_factory) -> tuple[str, dict[str, str]]:
    folder = tmp_path_factory.mktemp("calibration")
    database = f"sqlite:///{folder / 'viewer.sqlite3'}"
    ids = seed(database, folder, {"good": 0, "noisy": 1}, binary="labels", plain="plain")
    return database, ids


@pytest.fixture
def client(seeded, open_viewer):
    database, _ = seeded
    running = open_viewer(database)
    with httpx.Client(base_url=running.url, timeout=30) as opened:
        yield opened


def reports(database: str, *runs: str) -> list[CalibrationReport]:
    async def read() -> list[CalibrationReport]:
        async with await RecordStore.open(database) as store:
            return [await stored_report(store, run) for run in runs]

    return off_loop(read())


def svgs(page: str, kind: str) -> list[ElementTree.Element]:
    """The inline SVG charts of `kind` in a page, parsed."""
    found = []
    for chunk in page.split("<svg ")[1:]:
        markup = "<svg " + chunk.split("</svg>")[0] + "</svg>"
        root = ElementTree.fromstring(markup)
        if kind in root.get("class", "").split():
            found.append(root)
    return found


def test_the_list_has_every_calibration_run_with_its_headline_and_nothing_else(seeded, client):
    database, ids = seeded
    body = client.get("/view/api/calibration").json()
    assert body["total"] == 3
    # Newest first; the plain batch run keeps no report and is not listed.
    assert [row["name"] for row in body["runs"]] == ["labels", "noisy", "good"]
    good, noisy = reports(database, "good", "noisy")
    rows = {row["name"]: row for row in body["runs"]}
    for name, report in (("good", good), ("noisy", noisy)):
        row = rows[name]
        assert row["run"] == ids[name]
        assert row["judge"] == report.judge
        assert row["n"] == len(COHERENCE)
        assert row["kind"] == "ratings"
        assert row["verdict"] == str(report.verdict)
        assert row["target"] == "Pearson (pooled) >= 0.70"
        headline = {stat["group"]: stat for stat in row["headline"]}
        assert set(headline) == {"coherence", "fluency"}
        for dimension, stat in headline.items():
            expected = report.dimensions[dimension].correlations.pooled.pearson
            assert (stat["value"], stat["low"], stat["high"]) == (
                expected.value,
                expected.low,
                expected.high,
            )
    assert rows["labels"]["kind"] == "binary"
    assert rows["labels"]["headline"][0]["metric"] == "balanced_accuracy"

    by_name = client.get("/view/api/calibration", params={"sort": "name"}).json()
    assert [row["name"] for row in by_name["runs"]] == ["good", "labels", "noisy"]
    found = client.get("/view/api/calibration", params={"search": "NOIS"}).json()
    assert [row["name"] for row in found["runs"]] == ["noisy"]
    paged = client.get("/view/api/calibration", params={"per_page": 2, "page": 2}).json()
    assert (paged["total"], paged["pages"], [r["name"] for r in paged["runs"]]) == (3, 2, ["good"])

    page = client.get("/view/calibration")
    assert page.status_code == 200
    assert "default-src 'none'" in page.headers["content-security-policy"]
    for name in ("good", "noisy", "labels"):
        assert f'data-run="{ids[name]}"' in page.text
    assert 'id="compare-form"' in page.text
    assert ids["plain"] not in page.text


def test_a_report_shows_every_statistic_with_its_interval_and_the_plots_data(seeded, client):
    database, ids = seeded
    (noisy,) = reports(database, "noisy")
    body = client.get(f"/view/api/calibration/{ids['noisy']}").json()
    assert body["about"]["name"] == "noisy"
    stats = {(s["group"], s["level"].split(" (")[0], s["metric"]): s for s in body["statistics"]}
    for dimension, result in noisy.dimensions.items():
        pooled = result.correlations.pooled
        grouped = result.correlations.per_group
        assert grouped is not None
        assert result.top is not None
        expected = {
            ("pooled", "pearson"): pooled.pearson,
            ("pooled", "spearman"): pooled.spearman,
            ("pooled", "kendall"): pooled.kendall,
            ("per document", "pearson"): grouped.pearson,
            ("per document", "kendall"): grouped.kendall,
            ("chance-corrected", "kappa"): result.agreement.kappa,
            ("chance-corrected", "alpha"): result.agreement.alpha,
            ("top of the scale", "auc"): result.top.auc,
            ("top of the scale", "balanced_accuracy"): result.top.balanced_accuracy,
        }
        for (level, metric), estimate in expected.items():
            stat = stats[(dimension, level, metric)]
            assert (stat["value"], stat["low"], stat["high"], stat["n"]) == (
                estimate.value,
                estimate.low,
                estimate.high,
                estimate.n,
            )
    points = {d["name"]: d["points"] for d in body["dimensions"]}
    assert points["coherence"] == [p.model_dump() for p in noisy.dimensions["coherence"].points]
    assert body["scale"] == [1.0, 5.0]
    assert body["latency"]["n"] == len(COHERENCE)
    assert body["cost"]["calls"] == pytest.approx(2.0)  # one call per criterion
    # The rounded scores' matrix: every scored item once, on the diagonal when both agree.
    (coherence,) = [c for c in body["confusions"] if c["title"] == "coherence"]
    assert coherence["labels"] == ["1", "2", "3", "4", "5"]
    assert sum(map(sum, coherence["matrix"])) == len(COHERENCE)
    agreeing = sum(
        1
        for p in noisy.dimensions["coherence"].points
        if p.judge is not None and p.judge == p.human
    )
    assert sum(coherence["matrix"][i][i] for i in range(5)) == agreeing

    page = client.get(f"/view/calibration/{ids['noisy']}")
    assert page.status_code == 200
    assert "style=" not in page.text
    scatters = svgs(page.text, "scatter")
    assert [s.get("aria-label") for s in scatters] == [
        "coherence: judge against human",
        "fluency: judge against human",
    ]
    dots = scatters[0].findall(f".//{SVG}circle")
    pairs = [(p.human, p.judge) for p in noisy.dimensions["coherence"].points]
    assert len(dots) == len(set(pairs))
    assert sum(int(dot.get("data-count")) for dot in dots) == len(pairs)
    assert len(scatters[0].findall(f".//{SVG}line[@class='diagonal']")) == 1
    histograms = svgs(page.text, "histogram")
    assert len(histograms) == 2
    judge_bars = histograms[0].find(f".//{SVG}g[@data-group='judge']")
    assert sum(int(bar.get("data-count")) for bar in judge_bars) == len(pairs)
    assert len(svgs(page.text, "confusion")) == 2
    pearson = noisy.dimensions["coherence"].correlations.pooled.pearson
    assert pearson.low is not None
    assert pearson.high is not None
    row = page.text.split('data-metric="pearson" data-group="coherence"')[1].split("</tr>")[0]
    assert f"{pearson.value:+.2f}" in row
    assert f"[{pearson.low:.2f}, {pearson.high:.2f}]" in row


def test_a_binary_report_has_its_metrics_and_confusion_matrix(seeded, client):
    database, ids = seeded
    (labels,) = reports(database, "labels")
    assert labels.binary is not None
    body = client.get("/view/api/calibration/labels").json()
    metrics = {s["metric"]: s["value"] for s in body["statistics"] if s["level"] == "all"}
    assert metrics == {
        "accuracy": labels.binary.accuracy.value,
        "balanced_accuracy": labels.binary.balanced_accuracy.value,
        "f1": labels.binary.f1.value,
        "auc": labels.binary.auc.value,
    }
    counts = labels.binary.counts
    assert body["confusions"] == [
        {
            "title": "labels",
            "labels": ["false", "true"],
            "matrix": [
                [counts.true_negative, counts.false_positive],
                [counts.false_negative, counts.true_positive],
            ],
            "note": None,
        }
    ]
    assert body["dimensions"] == []
    assert body["scale"] is None
    page = client.get(f"/view/calibration/{ids['labels']}").text
    (matrix,) = svgs(page, "confusion")
    cells = {
        (cell.get("data-row"), cell.get("data-column")): int(cell.get("data-count"))
        for cell in matrix.findall(f"{SVG}g")
        if cell.get("class") == "cell"
    }
    assert cells[("1", "1")] == counts.true_positive
    assert cells[("0", "1")] == counts.false_positive
    assert not svgs(page, "scatter")


def test_two_reports_compared_as_calibrate_compare_does(seeded, client):
    database, ids = seeded
    good, noisy = reports(database, "good", "noisy")
    expected = compare_reports(good, noisy)
    body = client.get("/view/api/calibration/compare", params={"a": "good", "b": "noisy"}).json()
    assert body["a"]["run"] == ids["good"]
    assert body["b"]["run"] == ids["noisy"]
    assert body["same_dataset"] is True
    assert [
        (c["group"], c["level"], c["metric"], c["change"], c["overlap"]) for c in body["changes"]
    ] == [(c.dimension, c.level, c.metric, c.change, c.overlap) for c in expected.changes]
    beyond = [c for c in body["changes"] if c["beyond"]]
    assert body["beyond"] == len(beyond) == sum(c.overlap is False for c in expected.changes)
    assert beyond  # a perfect judge against a noisy one: some intervals do not overlap
    assert all(c["overlap"] is False for c in beyond)

    by_key = {(c["group"], c["level"], c["metric"]): c for c in body["changes"]}
    pearson = by_key[("coherence", "pooled", "pearson")]
    assert pearson["before"]["value"] == pytest.approx(1.0)
    noisy_pearson = noisy.dimensions["coherence"].correlations.pooled.pearson
    assert pearson["after"] == {
        "value": noisy_pearson.value,
        "low": noisy_pearson.low,
        "high": noisy_pearson.high,
        "n": noisy_pearson.n,
        "reason": None,
        "shown": noisy_pearson.format(),
    }

    page = client.get("/view/calibration/compare", params={"a": ids["good"], "b": ids["noisy"]})
    assert page.status_code == 200
    (plot,) = svgs(page.text, "intervals")
    plotted = plot.findall(f"{SVG}g")
    assert len([row for row in plotted if row.get("class") == "row"]) == len(expected.changes)
    assert page.text.count('class="changed beyond"') == len(beyond)
    assert f"<strong>{len(beyond)}</strong> of {len(expected.changes)} statistics" in page.text


@pytest.mark.parametrize(
    ("path", "params", "status", "message"),
    [
        # The JSON's parameters are required by its schema; the page asks for the missing one.
        ("/view/api/calibration/compare", {"a": "good"}, 422, "b: "),
        ("/view/api/calibration/compare", {"b": "good"}, 422, "a: "),
        (
            "/view/api/calibration/compare",
            {"a": "good", "b": "labels"},
            422,
            "b: a binary report cannot be compared with a ratings one",
        ),
        ("/view/api/calibration/compare", {"a": "good", "b": "nope"}, 404, "no calibration run"),
        ("/view/api/calibration/nope", {}, 404, "no calibration run 'nope'"),
        ("/view/api/calibration/plain", {}, 404, "it is not a calibration run"),
        ("/view/api/calibration", {"sort": "cost"}, 422, "sort: 'cost' is not one of"),
        ("/view/api/calibration", {"search": "x" * 201}, 422, "search: at most 200"),
    ],
)
def test_what_cannot_be_shown_is_refused_naming_why(client, path, params, status, message):
    answer = client.get(path, params=params)
    assert answer.status_code == status
    assert message in answer.json()["message"]
    page = client.get(path.replace("/api", ""), params=params)
    assert page.status_code == status
    assert "text/html" in page.headers["content-type"]


def test_the_json_endpoints_are_documented(client):
    paths = client.get("/view/api/openapi.json").json()["paths"]
    for path in (
        "/view/api/calibration",
        "/view/api/calibration/{run}",
        "/view/api/calibration/compare",
    ):
        operation = paths[path]["get"]
        assert operation["tags"] == ["viewer"]
        assert operation["summary"]
        assert operation["description"]
        assert "/view" + path.removeprefix("/view/api") in operation["description"]
    assert not any(path.startswith("/view/calibration") for path in paths)


def test_a_pairwise_report_has_its_metrics_and_preference_matrix(tmp_path, open_viewer):
    path = tmp_path / "pairs.jsonl"
    labels = ["A", "B", "tie", "A", "B", "A"]
    rows = [
        {"id": f"p{i}", "instruction": "Which?", "output_a": "x", "output_b": "y", "label": label}
        for i, label in enumerate(labels)
    ]
    path.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
    dataset = load_labelled(path)
    choices = {f"p{i}": "A" for i in range(len(labels))}  # a judge that always says A
    report = pairwise_report(dataset, choices, judge="first-wins", model="m", n_boot=40)
    database = f"sqlite:///{tmp_path / 'pairs.sqlite3'}"

    async def store() -> str:
        async with await RecordStore.open(database) as records:
            run = await records.create_run("eval", name="pairs")
            await records.finish_run(run, "done", {REPORT_KEY: report.model_dump(mode="json")})
            return run

    off_loop(store())
    running = open_viewer(database)
    with httpx.Client(base_url=running.url) as client:
        body = client.get("/view/api/calibration/pairs").json()
        assert report.pairwise is not None
        metrics = {s["metric"]: s["value"] for s in body["statistics"] if s["level"] == "all"}
        assert metrics["accuracy"] == report.pairwise.accuracy.value
        assert metrics["agreement"] == report.pairwise.agreement.value
        assert metrics["position_consistency"] is None  # no swapped-order answers
        (confusion,) = body["confusions"]
        assert confusion["labels"] == ["A", "B", "tie"]
        # Every item in the judge's "A" column, each in its human label's row.
        assert confusion["matrix"] == [[3, 0, 0], [2, 0, 0], [1, 0, 0]]
        page = client.get("/view/calibration/pairs").text
        assert 'class="plot confusion"' in page


def test_a_report_this_jurist_cannot_read_is_named_without_hiding_the_others(tmp_path, open_viewer):
    database = f"sqlite:///{tmp_path / 'odd.sqlite3'}"
    ids = seed(database, tmp_path, {"fine": 0})

    async def store_odd() -> str:
        async with await RecordStore.open(database) as records:
            run = await records.create_run("eval", name="odd")
            kept = {REPORT_KEY: {"judge": "from another version", "dimensions": "not a map"}}
            await records.finish_run(run, "done", kept)
            return run

    odd = off_loop(store_odd())
    running = open_viewer(database)
    with httpx.Client(base_url=running.url) as client:
        body = client.get("/view/api/calibration").json()
        assert body["total"] == 2
        assert [row["run"] for row in body["runs"]] == [ids["fine"]]
        assert body["unreadable"] == [odd]
        page = client.get("/view/calibration").text
        assert odd in page.split('id="unreadable"')[1].split("</p>")[0]
        answer = client.get(f"/view/api/calibration/{odd}")
        assert answer.status_code == 500
        assert "its calibration report cannot be read" in answer.json()["message"]
