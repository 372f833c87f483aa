"""Alembic's scripts for the store: `env.py` and hand-written revisions in `versions/`."""
