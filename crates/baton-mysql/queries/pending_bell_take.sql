-- Takes this database's pending doorbell, a named lock (at most 64 characters: the database
-- name is hashed), waiting up to a timeout. Answers 1 when this session has it, 0 when another
-- session kept it.
--   ? timeout (s).
SELECT COALESCE(GET_LOCK(CONCAT('baton_pending_', SHA1(DATABASE())), ?), 0) AS taken
