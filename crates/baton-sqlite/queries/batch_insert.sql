-- Creates at ?3 a running batch of job ?1 whose partitions are assigned by strategy ?2, with
-- work stealing when ?4 is 1.
INSERT INTO baton_batches (name, strategy, stealing, state, created_at)
VALUES (?1, ?2, ?4, 'running', ?3)
RETURNING id, name, strategy, stealing, state, created_at, finished_at, failure
