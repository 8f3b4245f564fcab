-- One page of the leader-change history of every lease, oldest first (keyset pagination).
--   $1 last id already seen (0 for the first page), $2 rows to read (page size + 1).
SELECT id, lease, holder, token, changed_at, reason, previous_end
FROM baton_leader_changes
WHERE id > $1
ORDER BY id
LIMIT $2
