-- A worker's heartbeat for the executions it runs, in one statement. An execution not answered
-- no longer runs under the worker's token (finished, or abandoned and rescued).
--   $1 node, $2 execution ids, $3 their tokens (pairwise).
UPDATE baton_executions AS e
SET heartbeat_at = clock.now_ms
FROM (SELECT baton_now_ms() AS now_ms) AS clock,
     unnest($2::BIGINT[], $3::BIGINT[]) AS beat (id, token)
WHERE e.id = beat.id
  AND e.id = ANY ($2::BIGINT[])
  AND e.token = beat.token
  AND e.node = $1
  AND e.finished_at IS NULL
RETURNING e.id, e.cancel_requested
