"""`python -m jurist`, the same as the `jurist` command."""

from jurist.cli import main

# Tools that import every module (documentation, architecture checks) must not start the CLI.
if __name__ == "__main__":
    main()
