-- One page of the leader-change history of one lease, oldest first (keyset pagination).
--   $1 lease name, $2 last id already seen (0 for the first page), $3 rows to read.
SELECT id, lease, holder, token, changed_at, reason, previous_end
FROM baton_leader_changes
WHERE lease = $1 AND id > $2
ORDER BY id
LIMIT $3
