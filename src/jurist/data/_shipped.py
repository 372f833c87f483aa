"""The labelled dataset that ships inside jurist: SummEval's 100-summary calibration set.

100 CNN/DailyMail news summaries (25 articles, 4 summaries each), each rated 1-5 by three
experts on coherence, consistency, fluency and relevance; `human_scores` holds the mean of
the three. The file is kept byte for byte as published (its provenance and licence are in
NOTICE), and its sha256 is checked whenever it is read, so a figure measured on it is
measured on exactly these bytes.

    dataset = summeval_100()          # a LabelledDataset of 100 RatingItems
    jurist calibrate "$(python -c 'import jurist.data as d; print(d.summeval_100_path())')" ...
"""

import hashlib
from pathlib import Path

from jurist.data._errors import DatasetError
from jurist.data._labelled import DatasetKind, LabelledDataset, load_labelled

SUMMEVAL_100_SHA256 = "a178073878305a2849ca0ce421e162cdbb2cb09e612a666a3c5711e016fb9a7c"
_DATASETS = Path(__file__).parent / "datasets"


def summeval_100_path() -> Path:
    """Where the shipped SummEval calibration set is (JSON Lines, one summary a line)."""
    return _DATASETS / "summeval-100.jsonl"


def summeval_100() -> LabelledDataset:
    """The shipped SummEval calibration set, read as ratings. DatasetError when the file is
    missing or its bytes are not the ones jurist shipped (a damaged or edited install)."""
    path = summeval_100_path()
    try:
        actual = hashlib.sha256(path.read_bytes()).hexdigest()
    except OSError as exc:
        raise DatasetError(
            str(path), f"the shipped dataset cannot be read ({exc.strerror}); reinstall jurist"
        ) from None
    # Checked before parsing: a damaged file is named as damaged, not as a bad row.
    if actual != SUMMEVAL_100_SHA256:
        raise DatasetError(
            str(path),
            f"sha256 {actual} is not the shipped file's {SUMMEVAL_100_SHA256}; "
            "the file was changed or damaged: reinstall jurist",
        )
    return load_labelled(path, DatasetKind.RATINGS)
