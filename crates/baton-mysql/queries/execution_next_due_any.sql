-- The earliest due instant of all scheduled executions, and this server's time (SYSDATE(6):
-- see now.sql). One index lookup on (status, due_at, id): the minimum is a subquery of its own,
-- since beside SYSDATE(6) in one select list MariaDB reads every scheduled row instead.
SELECT (SELECT MIN(due_at)
        FROM baton_executions FORCE INDEX (baton_executions_due)
        WHERE status = 'scheduled') AS next_due,
       CAST(FLOOR(UNIX_TIMESTAMP(SYSDATE(6)) * 1000) AS SIGNED) AS now_ms
