-- Issues n execution tokens at once: raises the counter row 'baton execution tokens' (a name
-- no lease can have, since lease names hold no spaces) by n, creating it at n, and hands the
-- last token issued back through LAST_INSERT_ID(expr) in the statement's OK packet (no
-- AUTO_INCREMENT, which can go backwards after a restart on some versions). Run on its own
-- (autocommit), so the row is locked for this statement only.
--   ? n, n.
INSERT INTO baton_fencing_tokens (name, last) VALUES ('baton execution tokens', LAST_INSERT_ID(?))
ON DUPLICATE KEY UPDATE last = LAST_INSERT_ID(last + ?)
