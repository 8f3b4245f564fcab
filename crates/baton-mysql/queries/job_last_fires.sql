-- The last fire the scheduler accounted for, for every registered job that has schedule
-- records: the greatest scheduled instant of its schedule-triggered records, or the end of a
-- missed run they stand for, whichever is later. Jobs in id order.
SELECT j.name AS job,
       MAX(GREATEST(e.scheduled_at, COALESCE(e.covers_through, e.scheduled_at))) AS instant
FROM baton_jobs AS j
JOIN baton_executions AS e ON e.job = j.name
WHERE e.`trigger` = 'schedule'
GROUP BY j.id, j.name
ORDER BY j.id
