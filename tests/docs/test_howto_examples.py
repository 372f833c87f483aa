"""The how-to pages' Python examples run as written: the deterministic ones here, the ones
through the real embedded model in the `_real` tests (slow)."""

from collections.abc import Iterator

import pytest
from doc_snippets import ROOT, blocks, run_python

from jurist.settings import get_settings

PAGES_WITH_MODEL = ("how-to/models.md", "how-to/criteria.md", "how-to/grounding.md")


@pytest.fixture
def uncached(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """The real model is asked: no cached answer stands in for it."""
    monkeypatch.setenv("JURIST_CACHE", "0")
    monkeypatch.chdir(ROOT)
    get_settings.cache_clear()
    yield
    get_settings.cache_clear()


def test_model_examples_are_marked() -> None:
    for page in PAGES_WITH_MODEL:
        assert [block.needs_model for block in blocks(page, langs=("python",))] == [True]


def test_judges_example_runs(capsys: pytest.CaptureFixture[str]) -> None:
    run_python("how-to/judges.md", with_model=False)
    printed = capsys.readouterr().out
    assert printed.splitlines()[0] == "PASS"
    assert '"aggregated"' in printed


def test_validation_example_runs(capsys: pytest.CaptureFixture[str]) -> None:
    run_python("how-to/validation.md", with_model=False)
    printed = capsys.readouterr().out
    assert "False [('schema_violation', '$', \"Add the 'tests' field at $\")]" in printed


def test_model_example_real(uncached: None, capsys: pytest.CaptureFixture[str]) -> None:
    # A confident, readable yes.
    run_python("how-to/models.md", with_model=True)
    printed = capsys.readouterr().out.splitlines()
    model_line = next(line for line in printed if line.startswith("Yes"))
    assert "{'yes': 0.9" in model_line


def test_criterion_example_real(uncached: None, capsys: pytest.CaptureFixture[str]) -> None:
    # The right answer passes, and its P(yes) is above the wrong one's.
    run_python("how-to/criteria.md", with_model=True)
    printed = capsys.readouterr().out.splitlines()
    met, unmet = (line for line in printed if " P(yes) = " in line)
    assert met.startswith("PASS ")
    assert unmet.startswith("FAIL ")
    assert float(met.split()[3]) > float(unmet.split()[3])


def test_grounding_example_real(uncached: None, capsys: pytest.CaptureFixture[str]) -> None:
    # The invented claim is caught and the true one is supported by a quote that is really
    # in the context.
    run_python("how-to/grounding.md", with_model=True)
    printed = capsys.readouterr().out.splitlines()
    claims = [line.strip() for line in printed if line.startswith("  supported=")]
    invented = next(line for line in claims if "Corbusier" in line)
    year = next(line for line in claims if "1889" in line and "Corbusier" not in line)
    assert invented.startswith("supported=False")
    assert year.startswith("supported=True")
    assert "(quote found)" in year
    assert any(line.startswith("FAIL ") and "claims unsupported" in line for line in printed)
