"""The machine a bench ran on, in one line: cores, CPU model, platform and load average
(a figure from a loaded machine says so)."""

import contextlib
import os
import platform
import re
from pathlib import Path


def machine() -> str:
    model = ""
    with contextlib.suppress(OSError):
        found = re.search(r"^model name\s*:\s*(.*)$", Path("/proc/cpuinfo").read_text(), re.M)
        model = found.group(1) if found else ""
    load = ", ".join(f"{x:.2f}" for x in os.getloadavg())
    return f"{os.cpu_count()} CPUs ({model}), {platform.platform()}, load average {load}"
