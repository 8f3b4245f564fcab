-- Rings a lease's doorbell: lets go of its named lock, which wakes the sessions blocked on it.
--   ? lease name.
SELECT RELEASE_LOCK(CONCAT('baton_lease_', SHA1(?))) AS released
