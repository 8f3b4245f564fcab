-- Issues the next n fencing tokens of the cluster (node incarnations and partition claims): the
-- counter is created at n or raised by n, and LAST_INSERT_ID(expr) hands its new value, the
-- last of the n tokens, back in the statement's OK packet. The counter row stays locked until
-- the transaction ends, so tokens are issued in commit order and only grow. Every transaction
-- draws its tokens after its other row locks (see 0010_nodes.sql).
--   ? n, n.
INSERT INTO baton_cluster_counters (name, last) VALUES ('token', LAST_INSERT_ID(?))
ON DUPLICATE KEY UPDATE last = LAST_INSERT_ID(last + ?)
