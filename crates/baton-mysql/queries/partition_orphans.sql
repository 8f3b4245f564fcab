-- Up to a limit of pending and claimed partitions, lowest id first, whose node is not active,
-- not registered, or registered again since they were claimed (a plain read; a reassignment
-- then locks and judges them again).
-- Cost: every unfinished partition is read with its node, since a partition may be assigned to
-- an id that was never registered.
--   ? limit.
SELECT p.id
FROM baton_partitions AS p
LEFT JOIN baton_nodes AS n ON n.id = p.node
WHERE p.state IN ('pending', 'claimed')
  AND p.node IS NOT NULL
  AND (n.id IS NULL OR n.state <> 'active' OR (p.state = 'claimed' AND p.token < n.token))
ORDER BY p.id
LIMIT ?
