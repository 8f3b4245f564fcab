-- One page of the action log by id (keyset pagination).
--   ? last id already seen (0 for the first page), rows to read.
SELECT id, at, actor, action, target, detail
FROM baton_actions
WHERE id > ?
ORDER BY id
LIMIT ?
