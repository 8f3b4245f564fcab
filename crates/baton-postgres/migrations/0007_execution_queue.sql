-- Live executions are found through two narrow tables instead of partial indexes on the
-- execution record. An index whose key or predicate names a column that an UPDATE changes
-- makes PostgreSQL write a new entry in every index of the table for that row version; with
-- the status out of every index of baton_executions, a claim and a completion update the
-- record in place (heap-only tuples), and the queue tables take the index work: two entries
-- per execution when it is recorded, two when it starts, and deletions that cost no index
-- writes at all.
--
-- Every statement that moves an execution between states keeps these tables in step with its
-- status, in the same statement:
--   scheduled  <=> one row in baton_execution_queue,
--   running    <=> one row in baton_execution_runs,
--   final      <=> a row in neither.
-- Lock order: a queue row before its execution; an execution before its run row.

-- Executions waiting to start, with the immutable facts the claim rules read, so that a
-- claim judges candidates without reading their records.
CREATE TABLE baton_execution_queue (
    id           BIGINT NOT NULL,
    job          TEXT COLLATE "C" NOT NULL,
    due_at       BIGINT NOT NULL,
    scheduled_at BIGINT NOT NULL,
    trigger      TEXT NOT NULL,
    PRIMARY KEY (job, due_at, id)
);
-- What the workers claim, oldest due first; also answers the next due instant.
CREATE INDEX baton_execution_queue_due ON baton_execution_queue (due_at, id);

-- Executions that run: all of them for rescue, and by job for the claim's overlap rules.
CREATE TABLE baton_execution_runs (
    id  BIGINT PRIMARY KEY,
    job TEXT COLLATE "C" NOT NULL
);
CREATE INDEX baton_execution_runs_by_job ON baton_execution_runs (job, id);

INSERT INTO baton_execution_queue (id, job, due_at, scheduled_at, trigger)
SELECT id, job, due_at, scheduled_at, trigger FROM baton_executions WHERE status = 'scheduled';
INSERT INTO baton_execution_runs (id, job)
SELECT id, job FROM baton_executions WHERE status = 'running';

DROP INDEX baton_executions_due;
DROP INDEX baton_executions_live;

-- Room on each page for the versions a claim and a completion write, so that both stay on
-- the record's page (heap-only). Applies to pages filled from now on.
ALTER TABLE baton_executions SET (fillfactor = 30);

-- The queue tables turn over all the time: statistics and vacuum must follow closely.
ALTER TABLE baton_execution_queue SET (
    autovacuum_vacuum_scale_factor = 0.02,
    autovacuum_analyze_scale_factor = 0.02
);
ALTER TABLE baton_execution_runs SET (
    autovacuum_vacuum_scale_factor = 0.02,
    autovacuum_analyze_scale_factor = 0.02
);
