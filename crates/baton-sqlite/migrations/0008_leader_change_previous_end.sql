-- When the previous term of each leader change ended, on the store's clock: the previous
-- holder's last renewal when its lease expired, the release when it was released. NULL for a
-- fresh lease and for changes recorded before this column existed. With `at`, it gives the
-- failover's duration.
ALTER TABLE baton_leader_changes ADD COLUMN previous_end INTEGER;
