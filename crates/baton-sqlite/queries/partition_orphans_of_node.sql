-- The partitions assigned to or claimed by node ?1 in the states of ?2 (a JSON array), by id,
-- with the strategy of their batch.
SELECT p.id, p.batch, p.key, p.params, p.transferable, p.state, p.node, p.token, p.checkpoint,
       p.result, p.attempts, p.progress, p.created_at, p.claimed_at, p.heartbeat_at,
       p.finished_at, p.error,
       b.strategy
FROM baton_partitions AS p
JOIN baton_batches AS b ON b.id = p.batch
WHERE p.node = ?1 AND p.state IN (SELECT value FROM json_each(?2))
ORDER BY p.id
