"""Rubric files and library directories are read again only when they change: an unchanged
file is not re-read, a changed one (rewritten, or a file added to the library) is."""

import os
from pathlib import Path

import pytest
import yaml

import jurist.rubrics
from jurist.rubrics import get_rubric, load_rubric

LIBRARY = Path(jurist.rubrics.__file__).parent / "library"
AN_HOUR_AGO = 3600
TONE = yaml.safe_load((LIBRARY / "tone.yaml").read_text())


def rubric(rubric_id: str, description: str) -> dict[str, object]:
    return {**TONE, "id": rubric_id, "description": description}


def write(path: Path, data: dict[str, object], *, age_s: int = AN_HOUR_AGO) -> Path:
    """Writes a rubric file dated `age_s` ago, as a file settled since its last change is."""
    path.write_text(yaml.safe_dump(data, sort_keys=False))
    when = path.stat().st_mtime - age_s
    os.utime(path, (when, when))
    return path


@pytest.fixture
def reads(monkeypatch):
    """The rubric files read from now on, in order."""
    seen: list[str] = []
    read_text = Path.read_text

    def counted(self: Path, *args, **kwargs):
        if self.suffix in (".yaml", ".yml"):
            seen.append(self.name)
        return read_text(self, *args, **kwargs)

    monkeypatch.setattr(Path, "read_text", counted)
    return seen


def test_an_unchanged_file_is_read_once(tmp_path, reads):
    path = write(tmp_path / "mine.yaml", rubric("mine", "first"))
    first = load_rubric(path)
    assert load_rubric(path) is first
    assert reads == ["mine.yaml"]


def test_a_rewritten_file_is_read_again(tmp_path, reads):
    path = write(tmp_path / "mine.yaml", rubric("mine", "first"))
    assert load_rubric(path).description == "first"
    write(path, rubric("mine", "second"), age_s=AN_HOUR_AGO // 2)
    assert load_rubric(path).description == "second"
    assert reads == ["mine.yaml", "mine.yaml"]


def test_a_file_just_written_is_read_every_time(tmp_path, reads):
    # Changed a moment ago: a second change in the same tick of the file system's clock
    # would leave the same time, so its stamp is not trusted yet.
    path = write(tmp_path / "mine.yaml", rubric("mine", "first"), age_s=0)
    load_rubric(path)
    load_rubric(path)
    assert reads == ["mine.yaml", "mine.yaml"]


def test_a_rubric_added_to_the_library_directory_is_found(rubrics_path):
    write(rubrics_path / "one.yaml", rubric("one", "the first"))
    assert get_rubric("one").description == "the first"
    write(rubrics_path / "two.yaml", rubric("two", "added later"))
    assert get_rubric("two").description == "added later"


def test_a_rubric_removed_from_the_library_directory_is_gone(rubrics_path):
    override = write(rubrics_path / "tone.yaml", rubric("tone", "my own tone"))
    assert get_rubric("tone").description == "my own tone"
    override.unlink()
    assert get_rubric("tone").description != "my own tone"  # the built-in again
