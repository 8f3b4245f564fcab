-- The oldest heartbeat of the running executions (NULL when none runs), and this server's
-- time (SYSDATE(6): see now.sql).
SELECT MIN(heartbeat_at) AS oldest,
       CAST(FLOOR(UNIX_TIMESTAMP(SYSDATE(6)) * 1000) AS SIGNED) AS now_ms
FROM baton_executions
WHERE status = 'running'
