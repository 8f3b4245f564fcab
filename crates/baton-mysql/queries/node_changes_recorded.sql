-- Reads back the changes just recorded for the listed nodes, from the first id the insert
-- issued. Only a transaction holding a node's record records its changes, and this one holds
-- every listed node's, so every row found is this transaction's own.
-- /*ids*/ is replaced by one placeholder per node id.
--   ? first id, then the node ids.
SELECT id, node, token, from_state, to_state, changed_at, reason
FROM baton_node_changes
WHERE id >= ? AND node IN (/*ids*/)
ORDER BY id
