-- One wait of an idle node for pending partitions, in one statement: reads how many times
-- partitions were made pending and, when that is still the count last seen, waits up to a
-- timeout for the pending doorbell of this database. A ringer that keeps the doorbell (a named
-- lock; see pending_bell_take.sql) lets go of it to ring, which ends the wait at once; when no
-- session keeps it, the wait only sleeps, and the next wait reads the count again.
-- Answers the count read before waiting.
--   ? count last seen, timeout (s), timeout (s).
SELECT seen.pending,
       CASE
           WHEN seen.pending <> ? THEN 0
           WHEN IS_USED_LOCK(CONCAT('baton_pending_', SHA1(DATABASE()))) IS NULL THEN SLEEP(?)
           ELSE COALESCE(GET_LOCK(CONCAT('baton_pending_', SHA1(DATABASE())), ?) = 1
                         AND RELEASE_LOCK(CONCAT('baton_pending_', SHA1(DATABASE()))) = 1, 0)
       END AS waited
FROM (SELECT CAST(COALESCE(MAX(last), 0) AS SIGNED) AS pending
      FROM baton_cluster_counters
      WHERE name = 'pending') AS seen
