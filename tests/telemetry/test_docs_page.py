"""docs/integrations/opentelemetry.md: its Python examples print what the page says and send
their spans; its shell examples send jurist validate's spans where Jaeger, Phoenix and
Langfuse would take them (a receiver on 127.0.0.1 in their place)."""

import base64
import os
import subprocess
import sys
from pathlib import Path

import pytest
from otlp_receiver import receiver

from docs.doc_snippets import NOT_RUN, ROOT, blocks, run_python

PAGE = "integrations/opentelemetry.md"
# Where the page sends spans, and what stands in for each here.
BACKENDS = ("http://localhost:4318", "http://localhost:6006", "https://cloud.langfuse.com")


def test_the_python_examples_print_the_page_and_send_their_spans(
    capsys: pytest.CaptureFixture[str],
) -> None:
    with receiver() as received:
        run_python(PAGE, with_model=False, replace={BACKENDS[0]: received.url})
    printed = capsys.readouterr().out
    assert printed == "".join(block.code for block in blocks(PAGE, langs=("text",)))
    assert received.services == {"my-evals"}
    assert sorted({span.name for span in received.spans}) == [
        "chat gpt-4o-mini",
        "judge polite",
        "judge window",
        "jury support-panel",
    ]


SHELL = [block for block in blocks(PAGE, langs=("sh",)) if block.marker != NOT_RUN]


def test_every_backend_has_its_shell_example() -> None:
    assert len(SHELL) == len(BACKENDS)
    for block, backend in zip(SHELL, BACKENDS, strict=True):
        assert backend in block.code


@pytest.mark.parametrize("block", SHELL, ids=["jaeger", "phoenix", "langfuse"])
def test_the_shell_examples_send_the_commands_spans(block, tmp_path: Path) -> None:
    environment = {
        key: value
        for key, value in os.environ.items()
        if not key.startswith(("OTEL_", "JURIST_", "LANGFUSE_"))
    }
    bin_dir = str(Path(sys.executable).parent)
    environment |= {
        "JURIST_HOME": str(tmp_path / "home"),
        "PATH": f"{bin_dir}{os.pathsep}{os.environ['PATH']}",
    }
    with receiver() as received:
        code = block.code
        for backend in BACKENDS:
            code = code.replace(backend, received.url)
        done = subprocess.run(
            ["bash", "-e", "-c", code],
            cwd=ROOT,
            env=environment,
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
        )
        assert done.returncode == 0, done.stderr
    assert sorted(span.name for span in received.spans) == ["validate", "validation layer schema"]
    ((path, headers),) = received.requests
    if "langfuse" in block.code:
        assert path == "/api/public/otel/v1/traces"
        secret = base64.b64encode(b"pk-lf-example:sk-lf-example").decode()
        assert headers["authorization"] == f"Basic {secret}"
        assert headers["x-langfuse-ingestion-version"] == "4"
    else:
        assert path == "/v1/traces"
