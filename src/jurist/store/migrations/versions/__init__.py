"""The store's revisions, one chain; alembic skips this file."""
