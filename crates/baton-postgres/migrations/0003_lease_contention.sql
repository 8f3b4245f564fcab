-- Contenders that were refused a lease mark it as wanted until this instant (server clock, ms),
-- so that a graceful release notifies waiters only when someone waits. An unconditional
-- pg_notify would serialise every release's commit on PostgreSQL's notification queue lock.

ALTER TABLE baton_leases ADD COLUMN contended_until BIGINT NOT NULL DEFAULT 0;
