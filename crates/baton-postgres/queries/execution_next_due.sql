-- The earliest due instant of any scheduled execution (NULL when none is scheduled).
SELECT min(due_at) AS due_at FROM baton_executions WHERE status = 'scheduled'
