-- Up to ?1 pending or claimed partitions, by id, whose node is not active or not registered,
-- with the strategy of their batch and the state of their node (NULL when not registered).
SELECT p.id, p.batch, p.key, p.params, p.transferable, p.state, p.node, p.token, p.checkpoint,
       p.result, p.attempts, p.progress, p.created_at, p.claimed_at, p.heartbeat_at,
       p.finished_at, p.error,
       b.strategy, n.state AS node_state
FROM baton_partitions AS p
JOIN baton_batches AS b ON b.id = p.batch
LEFT JOIN baton_nodes AS n ON n.id = p.node
WHERE p.state IN ('pending', 'claimed')
  AND p.node IS NOT NULL
  AND (n.state IS NULL OR n.state <> 'active')
ORDER BY p.id
LIMIT ?1
