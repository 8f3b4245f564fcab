-- One page of the action log: ids after $1, at most $2 rows.
SELECT id, at, actor, action, target, detail
FROM baton_actions
WHERE id > $1
ORDER BY id
LIMIT $2
