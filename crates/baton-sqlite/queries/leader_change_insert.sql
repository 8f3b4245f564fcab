INSERT INTO baton_leader_changes (lease, holder, token, at, reason, previous_end)
VALUES (?1, ?2, ?3, ?4, ?5, ?6)
