-- Raises a resource's fence to the presented token unless it is already higher, creating it at
-- the token when missing, and keeps the fence row locked until the caller's transaction ends.
-- Affected-row counts of ON DUPLICATE KEY UPDATE do not tell a raise from a refusal: the caller
-- reads the fence back in the same transaction (fence_current.sql).
--   ? resource, token, token.
INSERT INTO baton_fences (resource, token) VALUES (?, ?)
ON DUPLICATE KEY UPDATE token = GREATEST(token, ?)
