-- The active nodes with their load.
SELECT id, load
FROM baton_nodes
WHERE state = 'active'
