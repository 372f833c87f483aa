"""FileJudge.exists, .contains and .matches_dir, resolved inside the workspace."""

from pathlib import Path

import pytest

from jurist.core import BooleanScore, Context, Judgment, Status, judge_sync
from jurist.judges import FileJudge


def judge(judge_, workspace: Path | None) -> Judgment:
    return judge_sync(judge_, Context("change the repository", workspace=workspace))


def failed(judgment: Judgment) -> dict[str, str]:
    return {c.name: c.message for c in judgment.checks if not c.passed}


# exists


def test_exists_passes_for_a_file_and_a_directory(tmp_path: Path):
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "app.py").write_text("print('hi')\n")
    file_result = judge(FileJudge.exists("src/app.py"), tmp_path)
    assert file_result.status is Status.PASS
    assert file_result.score == BooleanScore(True)
    assert file_result.metadata["kind"] == "file"
    assert file_result.metadata["path"] == str(tmp_path / "src" / "app.py")
    assert judge(FileJudge.exists("src"), tmp_path).metadata["kind"] == "directory"


def test_exists_fails_for_a_missing_path(tmp_path: Path):
    result = judge(FileJudge.exists("src/app.py"), tmp_path)
    assert result.status is Status.FAIL
    assert result.score == BooleanScore(False)
    assert "does not exist" in result.reasoning
    (tmp_path / "src").write_text("a file, not a directory")
    assert judge(FileJudge.exists("src/app.py"), tmp_path).status is Status.FAIL


def test_a_relative_path_without_a_workspace_is_an_error():
    result = judge(FileJudge.exists("src/app.py"), None)
    assert result.status is Status.ERROR
    assert "no workspace" in result.reasoning
    assert "src/app.py" in result.reasoning


def test_an_absolute_path_needs_no_workspace(tmp_path: Path):
    target = tmp_path / "report.md"
    target.write_text("# Report")
    assert judge(FileJudge.exists(target), None).status is Status.PASS


def test_a_symlink_loop_is_an_error_not_a_fail(tmp_path: Path):
    (tmp_path / "loop").symlink_to(tmp_path / "loop")
    result = judge(FileJudge.exists("loop"), tmp_path)
    assert result.status is Status.ERROR
    assert judge(FileJudge.contains("loop", "x"), tmp_path).status is Status.ERROR


# contains


def test_contains_a_substring(tmp_path: Path):
    (tmp_path / "CHANGELOG.md").write_text("# Changes\n\n- Fixed the refund bug\n")
    result = judge(FileJudge.contains("CHANGELOG.md", "refund bug"), tmp_path)
    assert result.status is Status.PASS
    assert result.metadata["line"] == 3
    assert "line 3" in result.reasoning
    missing = judge(FileJudge.contains("CHANGELOG.md", "Refund Bug"), tmp_path)
    assert missing.status is Status.FAIL
    assert "does not contain" in missing.reasoning


def test_contains_a_regex(tmp_path: Path):
    (tmp_path / "version.py").write_text('__version__ = "2.4.1"\n')
    found = judge(FileJudge.contains("version.py", r'"\d+\.\d+\.\d+"', regex=True), tmp_path)
    assert found.status is Status.PASS
    assert found.metadata["match"] == '"2.4.1"'
    # Without regex=True the same text is a literal substring, which is not there.
    literal = judge(FileJudge.contains("version.py", r'"\d+\.\d+\.\d+"'), tmp_path)
    assert literal.status is Status.FAIL


def test_contains_missing_file_or_directory_fails(tmp_path: Path):
    assert judge(FileJudge.contains("nope.txt", "x"), tmp_path).status is Status.FAIL
    (tmp_path / "dir").mkdir()
    result = judge(FileJudge.contains("dir", "x"), tmp_path)
    assert result.status is Status.FAIL
    assert "is a directory" in result.reasoning


def test_contains_tolerates_bytes_that_are_not_utf8(tmp_path: Path):
    (tmp_path / "mixed.log").write_bytes(b"\xff\xfe garbage then the needle\n")
    assert judge(FileJudge.contains("mixed.log", "needle"), tmp_path).status is Status.PASS


def test_contains_unreadable_file_is_an_error(tmp_path: Path, monkeypatch):
    (tmp_path / "secret.txt").write_text("x")

    def denied(self: Path) -> bytes:
        raise PermissionError(13, "Permission denied", str(self))

    # Patched rather than chmod-ed: as root every file is readable.
    monkeypatch.setattr(Path, "read_bytes", denied)
    result = judge(FileJudge.contains("secret.txt", "x"), tmp_path)
    assert result.status is Status.ERROR
    assert result.error_info is not None
    assert result.error_info["type"] == "PermissionError"


def test_contains_bad_arguments():
    with pytest.raises(ValueError, match=r"pattern '\(' is not a valid regex"):
        FileJudge.contains("a.txt", "(", regex=True)
    with pytest.raises(ValueError, match="pattern must not be empty"):
        FileJudge.contains("a.txt", "")
    with pytest.raises(ValueError, match="path must not be empty"):
        FileJudge.exists("")
    with pytest.raises(TypeError, match="path must be"):
        FileJudge.exists(3)


# matches_dir


def make_tree(root: Path, files: dict[str, bytes]) -> Path:
    for rel, data in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
    return root


TREE = {"README.md": b"# demo\n", "src/app.py": b"print(1)\n", "src/lib/util.py": b"x = 1\n"}


def test_matches_dir_passes_for_an_identical_tree(tmp_path: Path):
    expected = make_tree(tmp_path / "expected", TREE)
    workspace = make_tree(tmp_path / "work", TREE)
    result = judge(FileJudge.matches_dir(expected), workspace)
    assert result.status is Status.PASS
    assert result.metadata["compared"] == 3
    assert [(c.name, c.passed) for c in result.checks] == [("directory", True)]


def test_matches_dir_reports_each_missing_extra_and_differing_file(tmp_path: Path):
    expected = make_tree(tmp_path / "expected", TREE)
    actual = dict(TREE)
    del actual["src/lib/util.py"]
    actual["src/app.py"] = b"print(2)\n"
    actual["notes.txt"] = b"extra"
    actual["README.md"] = b"# demo, longer\n"
    workspace = make_tree(tmp_path / "work", actual)
    result = judge(FileJudge.matches_dir(expected), workspace)
    assert result.status is Status.FAIL
    assert result.score == BooleanScore(False)
    assert failed(result) == {
        "src/lib/util.py": "missing",
        "notes.txt": "unexpected file",
        "src/app.py": "content differs from byte 6",
        "README.md": "content differs: 15 bytes, expected 7",
    }
    assert result.metadata["missing"] == 1
    assert result.metadata["extra"] == 1
    assert result.metadata["differing"] == 2


def test_matches_dir_compares_a_subdirectory_of_the_workspace(tmp_path: Path):
    expected = make_tree(tmp_path / "expected", {"out.txt": b"42\n"})
    workspace = make_tree(tmp_path / "work", {"build/out.txt": b"42\n", "src/x.py": b""})
    assert judge(FileJudge.matches_dir(expected, "build"), workspace).status is Status.PASS
    assert judge(FileJudge.matches_dir(expected), workspace).status is Status.FAIL


def test_matches_dir_ignores_nothing_unless_told(tmp_path: Path):
    expected = make_tree(tmp_path / "expected", TREE)
    noisy = {**TREE, "src/__pycache__/app.cpython-311.pyc": b"\0", "src/lib/util.pyc": b"\0"}
    workspace = make_tree(tmp_path / "work", noisy)
    strict = judge(FileJudge.matches_dir(expected), workspace)
    assert set(failed(strict)) == {"src/__pycache__/app.cpython-311.pyc", "src/lib/util.pyc"}
    lenient = FileJudge.matches_dir(expected, ignore=("*.pyc", "__pycache__"))
    assert judge(lenient, workspace).status is Status.PASS


def test_matches_dir_when_the_directory_is_missing_or_a_file(tmp_path: Path):
    expected = make_tree(tmp_path / "expected", TREE)
    workspace = tmp_path / "work"
    workspace.mkdir()
    missing = judge(FileJudge.matches_dir(expected, "out"), workspace)
    assert missing.status is Status.FAIL
    assert "does not exist" in missing.reasoning
    (workspace / "out").write_text("")
    a_file = judge(FileJudge.matches_dir(expected, "out"), workspace)
    assert a_file.status is Status.FAIL
    assert "not a directory" in a_file.reasoning


def test_matches_dir_with_a_missing_expected_dir_is_an_error(tmp_path: Path):
    result = judge(FileJudge.matches_dir(tmp_path / "nowhere"), tmp_path)
    assert result.status is Status.ERROR
    assert "expected_dir" in result.reasoning


def test_matches_dir_default_path_needs_a_workspace(tmp_path: Path):
    result = judge(FileJudge.matches_dir(tmp_path), None)
    assert result.status is Status.ERROR
    assert "no workspace" in result.reasoning


def test_matches_dir_relative_expected_dir_is_fixed_at_construction(tmp_path: Path, monkeypatch):
    make_tree(tmp_path / "fixtures" / "expected", TREE)
    workspace = make_tree(tmp_path / "work", TREE)
    monkeypatch.chdir(tmp_path / "fixtures")
    matcher = FileJudge.matches_dir("expected")
    monkeypatch.chdir(workspace)
    assert judge(matcher, workspace).status is Status.PASS


def test_matches_dir_bad_ignore_patterns():
    with pytest.raises(ValueError, match=r"ignore\[1\] is empty"):
        FileJudge.matches_dir("x", ignore=("*.pyc", ""))
    with pytest.raises(TypeError, match=r"ignore\[0\] is a int"):
        FileJudge.matches_dir("x", ignore=(3,))
