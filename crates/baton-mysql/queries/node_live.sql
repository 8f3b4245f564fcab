-- The active nodes with their load, as the assignment rules see them (a plain read: the latest
-- committed records, and this transaction's own changes).
SELECT id, reported_load AS `load`
FROM baton_nodes
WHERE state = 'active'
