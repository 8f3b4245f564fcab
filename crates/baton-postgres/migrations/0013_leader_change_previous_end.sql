-- When the previous term of each leader change ended, on the server's clock: the previous
-- holder's last renewal when its lease expired, the release when it was released. NULL for a
-- fresh lease and for changes recorded before this column existed. With changed_at, it gives
-- the failover's duration. The lease row keeps the value of its latest acquisition, so that
-- the acquiring statement computes it from the row it locked and records it with the change.
ALTER TABLE baton_leases ADD COLUMN previous_end BIGINT;
ALTER TABLE baton_leader_changes ADD COLUMN previous_end BIGINT;
