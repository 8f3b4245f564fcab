-- Raises a resource's fence to the presented token, or leaves it when the fence is already
-- higher. No row answered means the writer is stale. Runs in the caller's transaction and
-- keeps the fence row locked until that transaction ends.
--   $1 resource, $2 presented token.
INSERT INTO baton_fences AS f (resource, token)
VALUES ($1, $2)
ON CONFLICT (resource) DO UPDATE SET token = excluded.token
WHERE f.token <= excluded.token
RETURNING f.token
