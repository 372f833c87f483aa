"""How `jurist` reads to a person: help that flows and names its values plainly, `-h`,
`python -m jurist`, piped output that is not cut, and counts in the right number."""

import inspect
import itertools
import json
import re
import subprocess
import sys
from collections.abc import Iterator

import pytest
import typer
from typer.testing import CliRunner

from jurist.cli import app

runner = CliRunner()

# The commands whose --json prints a judgment (the others print runs, keys, reports, ...).
JUDGMENT_COMMANDS = {"judge", "criteria", "compare", "facts", "grounding"}


def _commands() -> Iterator[tuple[list[str], typer.core.TyperCommand]]:
    def walk(command, path):
        yield path, command
        for name, sub in getattr(command, "commands", {}).items():
            yield from walk(sub, [*path, name])

    yield from walk(typer.main.get_command(app), [])


COMMANDS = list(_commands())
IDS = [" ".join(path) or "jurist" for path, _ in COMMANDS]


def _help(path: list[str], columns: int) -> str:
    result = runner.invoke(app, [*path, "--help"], env={"COLUMNS": str(columns)})
    assert result.exit_code == 0, result.output
    return result.output


def _lines(output: str) -> list[str]:
    # One space between words; the panels' borders are not text.
    return [" ".join(line.strip(" │").split()) for line in output.splitlines()]


def _hard_breaks(help_text: str) -> list[tuple[str, str]]:
    """The word pairs a docstring breaks its line between, inside a paragraph of prose."""
    pairs = []
    for paragraph in inspect.cleandoc(help_text).split("\n\n"):
        lines = [line.strip() for line in paragraph.splitlines()]
        for this, following in itertools.pairwise(lines):
            if this and following:
                # Markdown shows `code` without its backticks.
                before, after = this.split()[-1], following.split()[0]
                pairs.append((before.replace("`", ""), after.replace("`", "")))
    return pairs


def test_some_docstring_breaks_its_lines_so_the_flow_test_tests_something():
    assert sum(len(_hard_breaks(cmd.help or "")) for _, cmd in COMMANDS) > 20


# The commands whose docstring breaks its lines (a one-line docstring has nothing to flow).
BROKEN = [(p, c) for p, c in COMMANDS if _hard_breaks(c.help or "")]


@pytest.mark.parametrize(
    ("path", "command"), BROKEN, ids=[" ".join(p) or "jurist" for p, _ in BROKEN]
)
def test_help_flows_over_the_docstrings_line_breaks(path, command):
    breaks = _hard_breaks(command.help or "")
    outputs = {columns: _lines(_help(path, columns)) for columns in (120, 200)}
    for before, after in breaks:
        joined = f"{before} {after}"
        # Flowing text may wrap at one width exactly where the docstring broke, never at both.
        assert any(joined in line for lines in outputs.values() for line in lines), (
            f"`jurist {' '.join(path)} --help` keeps the docstring's break at {joined!r}"
        )


def test_a_long_sentence_is_one_line_at_a_wide_terminal():
    lines = _lines(_help(["calibrate"], 200))
    sentence = "PASS when every dimension's pooled Pearson reaches --target"
    assert any(sentence in line for line in lines)


def test_a_list_in_help_text_keeps_its_lines():
    # The same help settings as jurist's own commands, on a docstring with a list.
    demo = typer.Typer(rich_markup_mode=app.rich_markup_mode)

    @demo.command()
    def go() -> None:
        """Do it.

        Exit codes:

        - 0 done
        - 1 not done
        """

    @demo.command()
    def other() -> None:
        """Another."""

    output = runner.invoke(demo, ["go", "--help"], env={"COLUMNS": "200"}).output
    lines = _lines(output)
    assert "• 0 done" in lines
    assert "• 1 not done" in lines


# typer's own spelling of a type: `<bool>`, `<list[str]>`, `<a|b>`, `<str,str>`.
_TYPER_SPELLING = re.compile(
    r"<(bool|str|int|float|path|file|dir|datetime|list\[[^>]*\]|[\w.-]+(?:[|,][\w.-]+)+)>"
)


@pytest.mark.parametrize(("path", "command"), COMMANDS, ids=IDS)
def test_every_option_shows_a_readable_metavar(path, command):
    output = _help(path, 200)
    assert not _TYPER_SPELLING.search(output), output
    usage = next(line for line in output.splitlines() if "Usage:" in line)
    assert "{" not in usage, usage
    lines = _lines(output)
    for param in command.params:
        if param.param_type_name == "argument":
            assert (param.metavar or param.name).upper() in usage
            continue
        if param.hidden:
            continue
        long = next(name for name in param.opts if name.startswith("--"))
        row = next(line for line in lines if re.match(rf"(\* )?{re.escape(long)}(,|\s|$)", line))
        names = {*param.opts, *param.secondary_opts}
        # Aliases are joined by commas (`--variants,--judges`).
        words = re.split(r"[\s,]+", row)
        rest = " ".join(word for word in words if word not in names and word != "*")
        if param.is_flag:
            # A flag takes no value: its help follows its names directly.
            help_start = (param.help or "").split()[0].strip("`")
            assert rest.startswith(help_start), row
        else:
            assert re.match(r"([A-Z]+( [A-Z]+)*|\[[^\]]+\])( |$)", rest), row


def test_a_choice_shows_its_values():
    lines = _lines(_help(["align"], 200))
    assert any(line.startswith("--method [isotonic|linear]") for line in lines)


def _json_help(command) -> str | None:
    for param in command.params:
        if "--json" in getattr(param, "opts", ()):
            return param.help
    return None


def test_json_says_what_each_command_prints():
    helps = {" ".join(path): _json_help(cmd) for path, cmd in COMMANDS if _json_help(cmd)}
    assert {"runs list", "kb list", "keys list"} <= helps.keys()
    for name, text in helps.items():
        if name not in JUDGMENT_COMMANDS:
            assert "judgment" not in text.lower(), (name, text)
        assert "instead of a table" not in text, (name, text)
    # The listings each name what they list.
    listings = [helps[name] for name in helps if name.endswith(" list")]
    assert len(set(listings)) == len(listings), listings


@pytest.mark.parametrize("args", [["-h"], ["validate", "-h"], ["kb", "list", "-h"]])
def test_dash_h_is_help(args):
    result = runner.invoke(app, args)
    assert result.exit_code == 0, result.output
    assert f"Usage: jurist {' '.join(args[:-1])}".rstrip() in " ".join(result.output.split())


def test_python_dash_m_jurist_runs_the_command():
    result = subprocess.run(
        [sys.executable, "-m", "jurist", "--version"],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    assert re.fullmatch(r"jurist \S+\n", result.stdout)


LONG_KEYWORD = "unbrokenkeyword" * 12  # 180 characters, no space to wrap at


def test_piped_output_is_not_wrapped():
    # CliRunner's stdout is not a terminal, as with `jurist check ... | tee log`.
    result = runner.invoke(
        app, ["check", "-", "--contains", LONG_KEYWORD], input="hello", env={"COLUMNS": "80"}
    )
    assert result.exit_code == 1, result.output
    row = next(line for line in result.stdout.splitlines() if LONG_KEYWORD in line)
    assert len(row.rstrip()) > 180


def test_a_terminal_still_gets_lines_that_fit():
    env = {"COLUMNS": "80", "FORCE_COLOR": "1", "TTY_COMPATIBLE": "1"}
    result = runner.invoke(app, ["check", "-", "--contains", LONG_KEYWORD], input="hi", env=env)
    assert result.exit_code == 1, result.output
    shown = re.sub(r"\x1b\[[0-9;]*m", "", result.stdout)
    assert LONG_KEYWORD not in shown
    assert max(len(line.rstrip()) for line in shown.splitlines()) <= 80


def _schema_request(tmp_path, wrong_fields: int) -> str:
    fields = [f"field{i}" for i in range(wrong_fields)]
    body = {
        "output": {name: 3 for name in fields},
        "validation_types": ["schema"],
        "expected_schema": {
            "type": "object",
            "properties": {name: {"type": "string"} for name in fields},
        },
    }
    path = tmp_path / "request.json"
    path.write_text(json.dumps(body), "utf-8")
    return str(path)


@pytest.mark.parametrize(("wrong", "said"), [(1, "1 error,"), (2, "2 errors,")])
def test_validate_counts_errors_in_the_right_number(tmp_path, wrong, said):
    result = runner.invoke(app, ["validate", _schema_request(tmp_path, wrong)])
    assert result.exit_code == 1, result.output
    headline = result.stdout.splitlines()[0]
    assert said in headline
    assert "0 warnings" in headline


def test_kb_add_counts_chunks_in_the_right_number(tmp_path):
    db = f"sqlite:///{tmp_path / 'kb.sqlite3'}"
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "tower.md").write_text("The tower was completed in 1889.", "utf-8")
    one = runner.invoke(app, ["kb", "add", str(docs), "-c", "notes", "--database", db])
    assert one.exit_code == 0, one.output
    assert "1 chunk written" in one.stdout
    (docs / "bridge.md").write_text("The bridge opened in 1894.", "utf-8")
    (docs / "tower.md").write_text("The tower was finished in 1889.", "utf-8")
    two = runner.invoke(app, ["kb", "add", str(docs), "-c", "notes", "--database", db])
    assert two.exit_code == 0, two.output
    assert "2 chunks written" in two.stdout
