-- Starts keeping the due doorbell at generation 0 when no session keeps it (neither
-- generation's named lock is held). Answers 1 when this session keeps it now.
SELECT COALESCE(IF(IS_USED_LOCK('baton_due_0') IS NULL AND IS_USED_LOCK('baton_due_1') IS NULL,
                   GET_LOCK('baton_due_0', 0), 0), 0) AS kept
