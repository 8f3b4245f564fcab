-- The oldest heartbeat of the running executions (NULL when none runs), and this server's
-- time (SYSDATE(6): see now.sql). One index lookup on (status, heartbeat_at): the minimum is a
-- subquery of its own, since beside SYSDATE(6) in one select list MariaDB reads every running
-- row instead.
SELECT (SELECT MIN(heartbeat_at) FROM baton_executions WHERE status = 'running') AS oldest,
       CAST(FLOOR(UNIX_TIMESTAMP(SYSDATE(6)) * 1000) AS SIGNED) AS now_ms
