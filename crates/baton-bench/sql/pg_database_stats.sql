-- Commits and sessions counted for this database, as flushed to the statistics so far.
SELECT xact_commit, sessions
FROM pg_stat_database
WHERE datname = current_database()
