"""`--cluster`: where a batch command judges its items (a Dask cluster, or this process)."""

from typing import Annotated

import typer

from jurist.runner import ClusterError, check_cluster
from jurist.settings import get_settings


def chosen_cluster(given: str | None) -> str | None:
    """The cluster to judge on: --cluster, else JURIST_CLUSTER, else None (this process).
    Checked as the command line is read: a cluster in none of the forms, or Dask missing,
    stops the command with exit 2 naming where the cluster came from."""
    text = given if given is not None else get_settings().cluster
    if text is None:
        return None
    try:
        check_cluster(text)
    except ClusterError as exc:
        where = "" if given is not None else "(from JURIST_CLUSTER) "
        raise typer.BadParameter(f"{where}{exc}") from exc
    return text


ClusterOption = Annotated[
    str | None,
    typer.Option(
        "--cluster",
        metavar="CLUSTER",
        callback=chosen_cluster,
        help="Judge on a Dask cluster: local:N starts N worker processes on this machine, "
        "tcp://HOST:PORT joins a running scheduler (default: JURIST_CLUSTER; unset, this "
        "process). Needs jurist[cluster].",
    ),
]
