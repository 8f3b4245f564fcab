-- How many wake-ups of a channel were counted so far.
--   ? channel.
SELECT CAST(COALESCE(MAX(last), 0) AS SIGNED) AS rings
FROM baton_cluster_counters
WHERE name = ?
