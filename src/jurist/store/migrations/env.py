"""Alembic's entry point. `jurist.store.migrate(engine)` runs it with an open connection in
`config.attributes["connection"]`; there is no alembic.ini and no offline mode."""

from alembic import context

from jurist.store._tables import VERSION_TABLE, include_name, metadata


def _run() -> None:
    connection = context.config.attributes.get("connection")
    if connection is None:
        raise RuntimeError("jurist's migrations run through jurist.store.migrate(engine)")
    context.configure(
        connection=connection,
        target_metadata=metadata,
        version_table=VERSION_TABLE,
        include_name=include_name,
        # SQLite alters a table by copying it; later revisions use op.batch_alter_table.
        render_as_batch=connection.dialect.name == "sqlite",
    )
    with context.begin_transaction():
        context.run_migrations()


_run()
