-- How many partitions of batch ?1 are unfinished (pending or claimed), and how many failed.
SELECT
    (SELECT count(*) FROM baton_partitions WHERE batch = ?1 AND state IN ('pending', 'claimed')),
    (SELECT count(*) FROM baton_partitions WHERE batch = ?1 AND state = 'failed')
