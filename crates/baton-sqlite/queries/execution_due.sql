-- Up to ?3 executions due at ?1 (the claim's time plus how far ahead it claims), in (due_at, id) order after (?4, ?5), of the jobs in ?2 (a
-- JSON array of names) or of any job when ?2 is NULL.
SELECT id, job, fire_key, scheduled_at, attempt, "trigger", status, due_at, node, token, created_at,
       started_at, heartbeat_at, finished_at, detail, covers_through, covers_count, cancel_requested
FROM baton_executions
WHERE status = 'scheduled'
  AND due_at <= ?1
  AND (?2 IS NULL OR job IN (SELECT value FROM json_each(?2)))
  AND (due_at, id) > (?4, ?5)
ORDER BY due_at, id
LIMIT ?3
