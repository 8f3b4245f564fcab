-- Frees a locked lease row whoever holds it (an operator's action), at the time read when it
-- was locked.
--   ? now (ms), lease name.
UPDATE baton_leases
SET holder = NULL, expires_at = ?, released = 'forced'
WHERE name = ?
