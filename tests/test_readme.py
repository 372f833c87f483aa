"""The README's Python examples run as written. (The model examples it used to hold moved to
the how-to pages; tests/docs/test_howto_examples.py runs them there.)"""

import re
from pathlib import Path

README = Path(__file__).parents[1] / "README.md"


def python_blocks() -> list[str]:
    return re.findall(r"```python\n(.*?)```", README.read_text(), flags=re.DOTALL)


def test_readme_has_examples():
    assert python_blocks()


def test_readme_examples_run(capsys):
    for block in python_blocks():
        exec(compile(block, str(README), "exec"), {"__name__": "readme"})
    printed = capsys.readouterr().out
    assert printed.splitlines()[0] == "PASS"
    assert '"aggregated"' in printed
    # The validation example: one located schema violation with its suggestion.
    assert "False [('schema_violation', '$', \"Add the 'tests' field at $\")]" in printed


def test_readme_keeps_two_set_up_commands() -> None:
    # A fresh machine needs exactly these: the main job, and the whole test suite.
    set_up = README.read_text().split("## Set up", 1)[1].split("\n## ", 1)[0]
    commands = re.findall(r"^make \w+", set_up, flags=re.MULTILINE)
    assert commands == ["make demo", "make test"]


def test_readme_links_resolve() -> None:
    root = README.parent
    links = re.findall(r"\]\(([^)#]+)(?:#[^)]*)?\)", README.read_text())
    assert links
    assert [link for link in links if not (root / link).exists()] == []


def test_make_demo_installs_every_extra_a_command_asks_for() -> None:
    # A command missing its extra tells the user to install `jurist[EXTRA]`; after the
    # README's set-up none should have to.
    root = Path(__file__).resolve().parents[1]
    makefile = (root / "Makefile").read_text()
    installed = set(re.findall(r"--extra ([a-z-]+)", makefile.split("EXAMPLE_CHECK")[0]))
    asked = {
        extra
        for path in (root / "src" / "jurist").rglob("*.py")
        for extra in re.findall(r"jurist\[([a-z-]+)\]", path.read_text())
    }
    assert asked
    assert asked <= installed, f"make demo lacks {sorted(asked - installed)}"
