-- The running batches of the listed jobs (a plain read), which a claim limited to those jobs
-- takes partitions of.
-- /*names*/ is replaced by one placeholder per job name.
SELECT id
FROM baton_batches
WHERE name IN (/*names*/) AND state = 'running'
