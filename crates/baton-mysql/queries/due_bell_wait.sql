-- Waits for a ring of the due doorbell at one generation. Answers 1 when it rang (the lock
-- was let go, and is let go again at once; or the keeper has moved on to the other
-- generation), 0 when the timeout passed without a ring, NULL when no session keeps the
-- doorbell.
--   ? the generation's lock, the other generation's lock, the generation's lock, timeout (s),
--     the generation's lock.
SELECT CASE
           WHEN IS_USED_LOCK(?) IS NULL THEN IF(IS_USED_LOCK(?) IS NULL, NULL, 1)
           ELSE COALESCE(GET_LOCK(?, ?) = 1 AND RELEASE_LOCK(?) = 1, 0)
       END AS rang
