-- The strategy of each listed batch (a plain read).
-- /*ids*/ is replaced by one placeholder per batch id.
SELECT id, strategy
FROM baton_batches
WHERE id IN (/*ids*/)
