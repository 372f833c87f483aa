"""The documentation site builds with `mkdocs build --strict`, with no network, and its
generated reference pages list every command and every setting."""

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    site_dir = tmp_path_factory.mktemp("site")
    # A proxy that refuses every connection: a build that reaches for the network fails.
    offline = {"http_proxy": "http://127.0.0.1:9", "https_proxy": "http://127.0.0.1:9"}
    result = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(site_dir)],
        check=False,
        cwd=ROOT,
        env={**os.environ, **offline, "NO_MKDOCS_2_WARNING": "1"},
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert result.returncode == 0, result.stderr[-4000:]
    return site_dir


def test_site_builds_strict(site: Path) -> None:
    assert (site / "index.html").is_file()
    assert (site / "reference" / "cli" / "index.html").is_file()


def test_site_asks_for_no_web_fonts(site: Path) -> None:
    pages = [page.read_text() for page in site.rglob("*.html")]
    assert pages
    assert not [page for page in pages if "fonts.googleapis.com" in page]


def test_cli_reference_lists_every_command(site: Path) -> None:
    import typer.main

    from jurist.cli import app

    page = (site / "reference" / "cli" / "index.html").read_text()
    root = typer.main.get_command(app)
    names = [f"jurist {name}" for name in root.commands]  # type: ignore[attr-defined]
    assert names
    assert [name for name in names if name not in page] == []


def test_settings_reference_lists_every_variable(site: Path) -> None:
    from jurist.server import ENVIRONMENT_VARIABLES

    page = (site / "reference" / "settings" / "index.html").read_text()
    assert [name for name in ENVIRONMENT_VARIABLES if name not in page] == []


def test_api_reference_documents_the_public_names(site: Path) -> None:
    import jurist.validation

    page = (site / "reference" / "api" / "validation" / "index.html").read_text()
    assert 'id="jurist.validation.validate"' in page
    assert len(jurist.validation.__all__) > 1
