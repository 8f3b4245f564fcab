-- One wait of an idle waiter on a channel, in one statement: reads the channel's counter and,
-- when that is still the count last seen, blocks for at most a timeout on the channel's named
-- lock in this database (at most 64 characters: the database name is hashed). A ringer that
-- keeps the lock (wakeup_ring.sql) lets go of it to ring, which ends the wait at once (the
-- waiter takes it and lets go at once); when no session keeps it, the wait only sleeps.
-- Answers the count read before waiting, and whether the wait ended on the lock.
--   ? count last seen, channel, timeout (s), channel, timeout (s), channel, channel.
SELECT seen.rings,
       CASE
           WHEN seen.rings <> ? THEN 0
           WHEN IS_USED_LOCK(CONCAT('baton_', ?, '_', SHA1(DATABASE()))) IS NULL THEN SLEEP(?)
           ELSE COALESCE(GET_LOCK(CONCAT('baton_', ?, '_', SHA1(DATABASE())), ?) = 1
                         AND RELEASE_LOCK(CONCAT('baton_', ?, '_', SHA1(DATABASE()))) = 1, 0)
       END AS waited
FROM (SELECT CAST(COALESCE(MAX(last), 0) AS SIGNED) AS rings
      FROM baton_cluster_counters
      WHERE name = ?) AS seen
