-- How far retention has deleted each job's record of its schedule.
SELECT job, through AS instant
FROM baton_pruned
ORDER BY job
