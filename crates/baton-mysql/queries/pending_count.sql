-- How many times partitions were made pending so far.
SELECT CAST(COALESCE(MAX(last), 0) AS SIGNED) AS pending
FROM baton_cluster_counters
WHERE name = 'pending'
