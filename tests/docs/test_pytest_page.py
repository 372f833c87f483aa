"""docs/integrations/pytest.md runs as written: its files are examples/pytest (which `make
wheel-check` runs from the wheel in a clean environment), its commands run on them, and the
output it shows is what they print."""

import shlex
from pathlib import Path

import pytest
from doc_snippets import ROOT, blocks
from typer.testing import CliRunner

from jurist.cli import app

PAGE = "integrations/pytest.md"
EXAMPLES = ROOT / "examples" / "pytest"


def _page_blocks(lang: str) -> list[str]:
    return [block.code for block in blocks(PAGE, langs=(lang,))]


def test_the_pages_files_are_the_examples():
    test_file, conftest = _page_blocks("python")
    assert test_file == (EXAMPLES / "test_support_bot.py").read_text()
    assert conftest == (EXAMPLES / "conftest.py").read_text()
    assert _page_blocks("jsonl") == [(EXAMPLES / "answers.jsonl").read_text()]


def _commands() -> list[tuple[list[str], int]]:
    """The page's `pytest` and `jurist` command lines, each with the exit it promises."""
    found = []
    for code in _page_blocks("sh"):
        for line in code.splitlines():
            words, _, comment = line.partition("#")
            expected = int(comment.split()[1]) if comment.strip().startswith("exit") else 0
            argv = shlex.split(words)
            if argv and argv[0] in ("pytest", "jurist"):
                found.append((argv, expected))
    return found


def test_the_pages_commands_print_what_it_shows(pytester: pytest.Pytester):
    for source in EXAMPLES.iterdir():
        (pytester.path / source.name).write_bytes(source.read_bytes())
    # pytest-asyncio, installed here, warns in every session that leaves this unset
    pytester.makeini("[pytest]\nasyncio_default_fixture_loop_scope = function\n")
    failure, summary = (code.splitlines() for code in _page_blocks("text"))
    commands = _commands()
    assert [argv[:2] for argv, _ in commands] == [
        ["pytest"],
        ["pytest", "-m"],
        ["pytest", "-m"],
        ["pytest", "--jurist-report"],
        ["jurist", "runs"],
        ["jurist", "runs"],
    ]
    run_id = None
    for argv, expected in commands:
        if argv[0] == "pytest":
            result = pytester.runpytest(*argv[1:])
            assert result.ret == expected, (argv, result.stdout.str())
            printed = result.stdout.lines
            if argv == ["pytest"]:
                assert [line for line in failure if line not in printed] == []
                assert [line for line in summary if line not in printed] == []
            if "-m" in argv:
                assert result.parseoutcomes().get("failed", 0) == 0
            stored = [line for line in printed if line.startswith("run ") and " stored" in line]
            if stored:
                run_id = stored[0].split()[1]
            continue
        assert run_id is not None, "the page shows no run before its jurist commands"
        shown = CliRunner().invoke(app, [run_id if word == "RUN" else word for word in argv[1:]])
        assert shown.exit_code == expected, (argv, shown.output)
        if argv[2] == "show":
            assert "5: 4 pass, 1 fail" in shown.output
        else:
            assert "test_support_bot.py::test_saved_answers[return-shoes],pytest,pass" in (
                shown.stdout
            )
    assert Path(pytester.path / "results.db").is_file()
