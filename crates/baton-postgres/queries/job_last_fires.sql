-- The last fire the scheduler accounted for, for every registered job with schedule records:
-- the greatest scheduled instant, or the end of a missed run. Manual, external and retry
-- records do not count.
SELECT j.name AS job,
       max(GREATEST(e.scheduled_at, COALESCE(e.covers_through, e.scheduled_at))) AS last_fire
FROM baton_jobs AS j
JOIN baton_executions AS e ON e.job = j.name AND e.trigger = 'schedule'
GROUP BY j.id, j.name
ORDER BY j.id
