-- Releases a lease gracefully: compare-and-set on (name, holder, token), refused once the
-- lease has expired. The row keeps its token so the next acquisition only goes up. Matched
-- rows: 1 released, 0 not held by this caller.
--   ? lease name, holder, token.
UPDATE baton_leases
SET holder = NULL,
    expires_at = CAST(FLOOR(UNIX_TIMESTAMP(SYSDATE(6)) * 1000) AS SIGNED),
    released = 'graceful'
WHERE name = ?
  AND holder = ?
  AND token = ?
  AND expires_at > CAST(FLOOR(UNIX_TIMESTAMP(SYSDATE(6)) * 1000) AS SIGNED)
