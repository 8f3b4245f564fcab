-- Locks up to n scheduled executions due by an instant (the claim's time plus how far ahead it
-- claims), in (due_at, id) order after a cursor, of the listed jobs or of any job. SKIP LOCKED:
-- an execution another claimer has locked is left to it, so claimers never wait on each other
-- here (MariaDB 10.6+, MySQL 8.0.1+).
-- /*list*/ is replaced by one "?" per job name ("NULL" when the claim names no job).
--   ? due by (ms), any job (bool), cursor due_at, cursor due_at, cursor id, rows to read.
SELECT id, job, fire_key, scheduled_at, attempt, `trigger`, status, due_at, node, token, created_at,
       started_at, heartbeat_at, finished_at, detail, covers_through, covers_count, cancel_requested
FROM baton_executions
WHERE status = 'scheduled'
  AND due_at <= ?
  AND (? OR job IN (/*list*/))
  AND (due_at > ? OR (due_at = ? AND id > ?))
ORDER BY due_at, id
LIMIT ?
FOR UPDATE SKIP LOCKED
