"""The README's Python examples run as written."""

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
    # The model example, through the real embedded model: a confident, readable yes.
    model_line = next(line for line in printed.splitlines() if line.startswith("Yes"))
    assert "{'yes': 0.9" in model_line
    # The criterion example, through the real embedded model: the right answer passes, and
    # its P(yes) is above the wrong one's.
    met, unmet = (line for line in printed.splitlines() if " P(yes) = " in line)
    assert met.startswith("PASS ")
    assert unmet.startswith("FAIL ")
    assert float(met.split()[3]) > float(unmet.split()[3])
    # The grounding example, through the real embedded model: the invented claim is caught
    # and the true one is supported by a quote that is really in the context.
    claims = [line.strip() for line in printed.splitlines() if line.startswith("  supported=")]
    invented = next(line for line in claims if "Corbusier" in line)
    year = next(line for line in claims if "1889" in line and "Corbusier" not in line)
    assert invented.startswith("supported=False")
    assert year.startswith("supported=True")
    assert "(quote found)" in year
    assert any(
        line.startswith("FAIL ") and "claims unsupported" in line for line in printed.splitlines()
    )
    # The validation example: one located schema violation with its suggestion.
    assert "False [('schema_violation', '$', \"Add the 'tests' field at $\")]" in printed


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
