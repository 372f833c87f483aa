"""pytest loads the plugin in every session of an environment that has jurist, judged or
not: loading it leaves the judges' registry, the dataset reader and the model layer to the
first test that needs them."""

import subprocess
import sys

HEAVY = ("jurist.specs", "jurist.data", "jurist.llm", "jurist.store", "jurist.runner")


def test_loading_the_plugin_imports_none_of_what_judging_needs() -> None:
    loaded = subprocess.run(
        [
            sys.executable,
            "-c",
            "import sys, jurist.pytest_plugin; "
            f"print(' '.join(m for m in {HEAVY!r} if m in sys.modules))",
        ],
        capture_output=True,
        text=True,
        check=True,
    )
    assert loaded.stdout.strip() == ""
