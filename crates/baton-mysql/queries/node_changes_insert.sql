-- Records node state changes, numbered in the order given.
-- /*rows*/ is replaced by one "(?, ?, ?, ?, ?, ?)" per change:
--   node, token, from_state, to_state, changed_at (ms), reason.
INSERT INTO baton_node_changes (node, token, from_state, to_state, changed_at, reason)
VALUES /*rows*/
