-- Fence rows for the fenced sink helper: the highest fencing token each resource has accepted.
CREATE TABLE baton_fences (
    resource TEXT    NOT NULL PRIMARY KEY,
    token    INTEGER NOT NULL CHECK (token > 0)
) STRICT;
