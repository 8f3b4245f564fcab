-- How many partitions of a batch are unfinished (pending or claimed), and how many failed.
--   ? batch id.
SELECT COUNT(CASE WHEN state IN ('pending', 'claimed') THEN 1 END) AS unfinished,
       COUNT(CASE WHEN state = 'failed' THEN 1 END) AS failed
FROM baton_partitions
WHERE batch = ?
