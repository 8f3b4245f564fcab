SELECT id, at, actor, action, target, detail
FROM baton_actions
WHERE id > ?1
ORDER BY id
LIMIT ?2
