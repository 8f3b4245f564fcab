-- Finishes a running batch with the verdict its tally (batch_tally.sql) called for.
--   $1 batch id, $2 final state, $3 failure (NULL when it succeeded).
-- Races. Racing finishers reach the same verdict from the same final partitions; the first to
-- commit finishes the batch, and a later one finds it no longer running and reads it locked,
-- which answers its latest version.
-- Answers the batch as stored.
WITH finished AS (
    UPDATE baton_batches AS b
    SET state = $2,
        failure = $3,
        finished_at = baton_now_ms()
    WHERE b.id = $1
      AND b.state = 'running'
    RETURNING b.id, b.name, b.strategy, b.stealing, b.state, b.created_at, b.finished_at,
              b.failure
)
SELECT f.id, f.name, f.strategy, f.stealing, f.state, f.created_at, f.finished_at, f.failure
FROM finished AS f
UNION ALL
SELECT s.id, s.name, s.strategy, s.stealing, s.state, s.created_at, s.finished_at, s.failure
FROM (
    SELECT b.id, b.name, b.strategy, b.stealing, b.state, b.created_at, b.finished_at, b.failure
    FROM baton_batches AS b
    WHERE b.id = $1
      AND NOT EXISTS (SELECT 1 FROM finished)
    FOR SHARE
) AS s
