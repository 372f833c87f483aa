"""`python -m jurist`, the same as the `jurist` command."""

from jurist.cli import main

main()
