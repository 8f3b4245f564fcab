-- Opens a read transaction, so this connection maps the WAL index.
SELECT count(*) FROM sqlite_master
