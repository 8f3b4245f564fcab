SELECT id, lease, holder, token, at, reason, previous_end
FROM baton_leader_changes
WHERE id > ?1
ORDER BY id
LIMIT ?2
