-- How far retention has deleted each job's record of its schedule: the greatest instant (a
-- missed run counting through its last) of the schedule, retry and external executions it
-- deleted. Raised by the statement that prunes, never lowered; an audit reports a fire at or
-- before it that has no record as pruned rather than missing. Keyed by the job's name, like
-- baton_executions, so the mark outlives the job's definition.
CREATE TABLE baton_pruned (
    job     TEXT COLLATE "C" PRIMARY KEY,
    through BIGINT NOT NULL
);
