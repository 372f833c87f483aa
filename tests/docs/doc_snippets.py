"""Reading and running the code blocks of a documentation page.

A block runs in the page's order, Python blocks in one namespace per page. A block right
after `<!-- needs: embedded model -->` runs only in the `_real` tests; one right after
`<!-- not run in tests: REASON -->` never runs (the page says why).
"""

import os
import re
import shlex
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs"
MODEL = "model"
NOT_RUN = "not run"

_BLOCK = re.compile(
    r"(?:<!-- (?P<marker>needs: embedded model|not run in tests: [^>]*) -->\n)?"
    r"```(?P<lang>[a-z]*)\n(?P<code>.*?)```",
    re.DOTALL,
)


@dataclass(frozen=True)
class Block:
    lang: str
    code: str
    marker: str | None

    @property
    def needs_model(self) -> bool:
        return self.marker == MODEL


def blocks(page: str, *, langs: tuple[str, ...] = ("python", "sh")) -> list[Block]:
    text = (DOCS / page).read_text()
    found = []
    for match in _BLOCK.finditer(text):
        marker = match["marker"]
        kind = None if marker is None else MODEL if marker.startswith("needs") else NOT_RUN
        if match["lang"] in langs:
            found.append(Block(match["lang"], match["code"], kind))
    return found


def runnable(page: str, *, with_model: bool, lang: str) -> list[Block]:
    return [
        block
        for block in blocks(page)
        if block.lang == lang and block.marker != NOT_RUN and (with_model or not block.needs_model)
    ]


def run_python(page: str, *, with_model: bool, replace: dict[str, str] | None = None) -> None:
    """Runs the page's Python blocks in order in one namespace."""
    namespace: dict[str, object] = {"__name__": "docs"}
    for block in runnable(page, with_model=with_model, lang="python"):
        code = block.code
        for old, new in (replace or {}).items():
            code = code.replace(old, new)
        exec(compile(code, str(DOCS / page), "exec"), namespace)


@dataclass(frozen=True)
class Command:
    line: str
    expected_exit: int


def commands(page: str, *, with_model: bool) -> list[Command]:
    """The `jurist` commands (alone or at the end of a pipe) and `curl` commands of the
    page's shell blocks, continuation lines joined; `# exit N` at the end of a line is the
    exit status it promises (else 0).
    `jurist serve` is left out: a test starts the service itself."""
    found = []
    for block in runnable(page, with_model=with_model, lang="sh"):
        joined = re.sub(r"\\\n\s*", " ", block.code)
        # A quoted argument may span lines (curl -d '{...}'): join lines until quotes close.
        pending = ""
        for raw in joined.splitlines():
            pending = f"{pending}\n{raw}" if pending else raw
            try:
                shlex.split(pending, comments=True)
            except ValueError:
                continue
            line, pending = pending.strip(), ""
            expected = 0
            if found_exit := re.search(r"#\s*exit (\d+)\s*$", line):
                expected = int(found_exit[1])
                line = line[: found_exit.start()].strip()
            runs_jurist = re.search(r"(?:^|\|\s*)jurist (?!serve)", line)
            if runs_jurist or line.startswith("curl "):
                found.append(Command(line, expected))
    return found


def run_command(command: Command, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    bin_dir = str(Path(sys.executable).parent)
    result = subprocess.run(
        ["bash", "-c", command.line],
        check=False,
        cwd=ROOT,
        env={**os.environ, **env, "PATH": f"{bin_dir}{os.pathsep}{os.environ['PATH']}"},
        capture_output=True,
        text=True,
        timeout=900,
    )
    assert result.returncode == command.expected_exit, (command.line, result.stdout, result.stderr)
    return result
