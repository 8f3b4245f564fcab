-- How far retention has deleted each job's record of its schedule: the greatest instant (a
-- missed run counting through its last) of the schedule, retry and external executions it
-- deleted. Raised in the transaction that prunes, never lowered; an audit reports a fire at or
-- before it that has no record as pruned rather than missing. Keyed by the job's name, like
-- baton_executions, so the mark outlives the job's definition.
CREATE TABLE IF NOT EXISTS baton_pruned (
    job     VARCHAR(200) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NOT NULL PRIMARY KEY,
    through BIGINT NOT NULL
) ENGINE = InnoDB
