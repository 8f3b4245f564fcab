-- Rings a channel from the session that keeps its named lock in this database: lets go of the
-- lock, which ends every wait on it (each waiter takes it and lets go at once, in the order
-- they queued, before this session's take queued after them), then takes it back, waiting up to
-- a timeout. From a session that does not keep it, only tries to take it. Evaluated left to
-- right. Answers 1 when this session keeps the lock now.
--   ? whether this session keeps the lock, channel, channel, timeout (s).
SELECT IF(?, RELEASE_LOCK(CONCAT('baton_', ?, '_', SHA1(DATABASE()))), NULL) AS released,
       COALESCE(GET_LOCK(CONCAT('baton_', ?, '_', SHA1(DATABASE())), ?), 0) AS kept
