-- Which generation of the due doorbell is kept now: 0 or 1 when that named lock is held (0
-- when both are, for a moment during a ring), NULL when no session keeps the doorbell.
SELECT CASE
           WHEN IS_USED_LOCK('baton_due_0') IS NOT NULL THEN 0
           WHEN IS_USED_LOCK('baton_due_1') IS NOT NULL THEN 1
       END AS generation
