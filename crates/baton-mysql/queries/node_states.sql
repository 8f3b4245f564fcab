-- The state and token of the listed nodes (a plain read of the latest committed records).
-- /*ids*/ is replaced by one placeholder per node id.
SELECT id, state, token
FROM baton_nodes
WHERE id IN (/*ids*/)
