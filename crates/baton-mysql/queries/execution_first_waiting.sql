-- The ids of one listed job's n lowest-id scheduled executions due by an instant, as
-- (job, id). One index range on (job, status, id), read in id order and stopped after n: a
-- window over every listed job's waiting executions read all of them (400,000 rows examined
-- per claim with 100,000 waiting). The statement run is this SELECT once per job, joined by
-- UNION ALL (queries::union_all).
--   ? the job's name, ? due by (ms), ? n.
(SELECT job, id
 FROM baton_executions FORCE INDEX (baton_executions_job_status)
 WHERE job = ? AND status = 'scheduled' AND due_at <= ?
 ORDER BY id
 LIMIT ?)
