-- Rings this database's pending doorbell: lets go of its named lock, which ends every wait on
-- it (each waiter takes it and lets go at once).
SELECT RELEASE_LOCK(CONCAT('baton_pending_', SHA1(DATABASE()))) AS released
