"""Where the shared data sets are: beside the repository (../shared), or at /work/shared on
machines where the repository was cloned elsewhere (a CI rehearsal in /tmp, say)."""

from pathlib import Path

_CANDIDATES = (Path(__file__).parents[2] / "shared", Path("/work/shared"))
SHARED = next((path for path in _CANDIDATES if path.is_dir()), _CANDIDATES[0])
SUMMEVAL = SHARED / "data" / "calibration" / "summeval-100.jsonl"
