-- Fence rows for the fenced sink helper: the highest token each protected resource has
-- accepted. A writer presenting a lower token is stale and its transaction is rejected.

CREATE TABLE baton_fences (
    resource TEXT PRIMARY KEY,
    token    BIGINT NOT NULL CHECK (token > 0)
);
