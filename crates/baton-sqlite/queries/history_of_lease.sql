SELECT id, lease, holder, token, at, reason, previous_end
FROM baton_leader_changes
WHERE lease = ?1 AND id > ?2
ORDER BY id
LIMIT ?3
