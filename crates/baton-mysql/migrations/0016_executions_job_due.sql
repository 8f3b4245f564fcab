-- Per-job due instants: the earliest due instant of a job's scheduled executions, and whether a
-- job has one due by an instant, each one index range per job on (job, status, due_at) instead
-- of a read of every waiting execution (a claim of 100 executions read all 100,000 waiting).
CREATE INDEX baton_executions_job_due ON baton_executions (job, status, due_at)
