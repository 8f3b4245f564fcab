-- The earliest due instant of all scheduled executions, and this server's time (SYSDATE(6):
-- see now.sql). One index lookup on (status, due_at, id).
SELECT MIN(due_at) AS next_due,
       CAST(FLOOR(UNIX_TIMESTAMP(SYSDATE(6)) * 1000) AS SIGNED) AS now_ms
FROM baton_executions FORCE INDEX (baton_executions_due)
WHERE status = 'scheduled'
