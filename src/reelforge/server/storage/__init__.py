"""The database: engine and migrations, tables, hand-written SQL and the shared row operations."""
