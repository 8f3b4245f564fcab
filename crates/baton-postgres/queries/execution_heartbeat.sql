-- A worker's heartbeat for the executions it runs, in one statement. An execution not answered
-- no longer runs under the worker's token (finished, or abandoned and rescued).
--   $1 node, $2 execution ids, $3 their tokens (pairwise).
--
-- The rows are locked in id order first, as completions lock them, so that a heartbeat and a
-- batched completion of the same worker wait for each other instead of deadlocking.
WITH clock AS MATERIALIZED (
    SELECT baton_now_ms() AS now_ms
),
locked AS MATERIALIZED (
    SELECT e.id
    FROM unnest($2::BIGINT[], $3::BIGINT[]) AS beat (id, token)
    JOIN baton_executions AS e ON e.id = beat.id
    WHERE e.token = beat.token
      AND e.node = $1
      AND e.finished_at IS NULL
    ORDER BY e.id
    FOR NO KEY UPDATE OF e
)
-- Joined on the id alone, so that every plan finds each row by its primary key.
UPDATE baton_executions AS e
SET heartbeat_at = clock.now_ms
FROM clock, locked AS l
WHERE e.id = l.id
RETURNING e.id, e.cancel_requested
