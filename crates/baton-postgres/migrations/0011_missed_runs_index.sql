-- The missed runs of each job by first instant: a fire is not recorded at an instant a missed
-- run already covers, and recording a fire looks for such a run here rather than through
-- every record of its job. Only missed runs have an entry, and no statement changes the
-- columns it names, so claims and completions still update executions in place.
CREATE INDEX baton_executions_missed_runs ON baton_executions (job, scheduled_at)
    WHERE covers_through IS NOT NULL;
