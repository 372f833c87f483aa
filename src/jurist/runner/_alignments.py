"""Where `jurist align` keeps its mappings, readable without importing the statistics
stack (scipy, scikit-learn), which only a rubric that has an alignment pays for."""

from pathlib import Path

from jurist.settings import Settings, get_settings


def alignment_path(rubric_id: str, dimension: str, settings: Settings | None = None) -> Path:
    """Where the alignment of a rubric's dimension is kept: JURIST_HOME/alignments (the
    built-in rubrics live in the installed package, which is no place to write)."""
    home = (settings or get_settings()).home
    return home / "alignments" / f"{rubric_id}.{dimension}.json"


def aligned_dimensions(
    rubric_id: str, dimensions: list[str], settings: Settings | None = None
) -> list[str]:
    """The dimensions among `dimensions` that have a saved alignment for the rubric."""
    return [d for d in dimensions if alignment_path(rubric_id, d, settings).is_file()]
