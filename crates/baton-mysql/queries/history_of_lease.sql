-- One page of the leader-change history of one lease, oldest first (keyset pagination).
--   ? lease, last id already seen (0 for the first page), rows to read (page size + 1).
SELECT id, lease, holder, token, changed_at, reason, previous_end
FROM baton_leader_changes
WHERE lease = ? AND id > ?
ORDER BY id
LIMIT ?
