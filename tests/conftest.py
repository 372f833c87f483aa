"""Fixtures more than one test directory needs."""

import pytest

from jurist.settings import get_settings

# postgres_server, postgres_url: a throwaway PostgreSQL server (tests/postgres.py);
# pytester: pytest run on test files a test writes (tests/pytest_plugin).
pytest_plugins = ["postgres", "pytester"]


@pytest.fixture
def rubrics_path(monkeypatch, tmp_path):
    """An empty directory as JURIST_RUBRICS_PATH, for this test only, so the machine's own
    setting never leaks in."""
    directory = tmp_path / "rubrics"
    directory.mkdir()
    monkeypatch.setenv("JURIST_RUBRICS_PATH", str(directory))
    get_settings.cache_clear()
    yield directory
    monkeypatch.delenv("JURIST_RUBRICS_PATH")
    get_settings.cache_clear()
