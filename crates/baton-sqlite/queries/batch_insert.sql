-- Creates at ?3 a running batch of job ?1 whose partitions are assigned by strategy ?2.
INSERT INTO baton_batches (name, strategy, state, created_at)
VALUES (?1, ?2, 'running', ?3)
RETURNING id, name, strategy, state, created_at, finished_at, failure
