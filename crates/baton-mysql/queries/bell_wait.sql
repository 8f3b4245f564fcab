-- Waits until a lease's doorbell is free (its holder let go, or its holder's session ended),
-- then lets go of it at once. Answers TRUE when the doorbell was free within the timeout.
--   ? lease name, timeout in seconds, lease name.
SELECT COALESCE(GET_LOCK(CONCAT('baton_lease_', SHA1(?)), ?) = 1
                AND RELEASE_LOCK(CONCAT('baton_lease_', SHA1(?))) = 1, FALSE) AS rang
