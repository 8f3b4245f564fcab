-- Records a grant in the leader-change history.
--   ? lease, holder, token, changed_at, reason, previous_end.
INSERT INTO baton_leader_changes (lease, holder, token, changed_at, reason, previous_end)
VALUES (?, ?, ?, ?, ?, ?)
