"""`python -m jurist.cli`, the same as the `jurist` command."""

from jurist.cli import main

main()
