-- Takes the named lock that rings a lease's doorbell, unless this connection has it already
-- (named locks nest per connection). Answers 1 when held, 0 when another session has it.
--   ? lease name, lease name. Named locks are at most 64 characters: the name is hashed.
SELECT COALESCE(IF(IS_USED_LOCK(CONCAT('baton_lease_', SHA1(?))) <=> CONNECTION_ID(), 1,
                   GET_LOCK(CONCAT('baton_lease_', SHA1(?)), 0)), 0) AS taken
