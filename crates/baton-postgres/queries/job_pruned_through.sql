-- How far retention has deleted each job's record of its schedule.
SELECT job, through
FROM baton_pruned
ORDER BY job
