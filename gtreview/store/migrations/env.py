"""Alembic environment: always run on a connection handed over by gtreview."""

from __future__ import annotations

from alembic import context

connection = context.config.attributes.get("connection")
if connection is None:  # pragma: no cover - guarded by gtreview.store.db
    raise RuntimeError("gtreview migrations run through gtreview.store.db.migrate(), not the alembic CLI")

context.configure(connection=connection, render_as_batch=True)
with context.begin_transaction():
    context.run_migrations()
