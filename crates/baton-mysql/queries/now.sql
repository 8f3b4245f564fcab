-- This server's current time in milliseconds since the Unix epoch.
-- SYSDATE(6), not NOW(6): NOW() is fixed when a statement starts, before it waits for row locks,
-- so a statement that waited would judge expiry at a time already past. SYSDATE() is read when
-- it is evaluated, after the lock is held. UNIX_TIMESTAMP() reads it in the session time zone,
-- which the client sets to +00:00 (no daylight-saving ambiguity).
SELECT CAST(FLOOR(UNIX_TIMESTAMP(SYSDATE(6)) * 1000) AS SIGNED) AS now_ms
