-- The names in ?1 (a JSON array of names) that no registered job has.
SELECT value
FROM json_each(?1)
WHERE value NOT IN (SELECT name FROM baton_jobs)
ORDER BY key
