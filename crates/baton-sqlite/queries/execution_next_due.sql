SELECT MIN(due_at)
FROM baton_executions
WHERE status = 'scheduled'
