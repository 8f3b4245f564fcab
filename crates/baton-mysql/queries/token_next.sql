-- Issues the next fencing token of a name: creates its counter row at 1, or raises it by one.
-- The counter row stays locked until the transaction ends, so acquisitions of one name are
-- serialized and each one's token is greater than every token committed before it.
-- LAST_INSERT_ID(expr) hands the new value back in the statement's OK packet: one round trip,
-- no UPDATE ... RETURNING (which neither MariaDB nor MySQL has).
--   ? lease name.
INSERT INTO baton_fencing_tokens (name, last) VALUES (?, LAST_INSERT_ID(1))
ON DUPLICATE KEY UPDATE last = LAST_INSERT_ID(last + 1)
