-- Stores the first registration of a node id, active from now. Two first registrations of one
-- id race on the unique key: the later fails with a duplicate key and runs again, then finding
-- the record.
--   ? id, host, version, token, now (ms), load.
INSERT INTO baton_nodes
    (id, host, version, token, started_at, heartbeat_at, reported_load, state, state_changed_at)
VALUES (?, ?, ?, ?, ?, ?, ?, 'active', ?)
