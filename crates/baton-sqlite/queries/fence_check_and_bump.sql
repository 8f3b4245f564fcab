INSERT INTO baton_fences (resource, token)
VALUES (?1, ?2)
ON CONFLICT (resource) DO UPDATE SET token = excluded.token
WHERE baton_fences.token <= excluded.token
RETURNING token
