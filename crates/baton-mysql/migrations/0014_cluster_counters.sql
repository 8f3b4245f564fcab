-- The cluster's counters, one row each, never deleted:
-- 'token'   the last fencing token issued to a node incarnation or a partition claim, raised
--           with LAST_INSERT_ID(last + n) (not AUTO_INCREMENT, which some MySQL versions set
--           back after a restart), so tokens only grow;
-- 'pending' how many times partitions were made pending for others to claim, raised in the
--           same transaction; idle nodes watch it (see wakeup_wait.sql).
CREATE TABLE IF NOT EXISTS baton_cluster_counters (
    name VARCHAR(16) NOT NULL PRIMARY KEY,
    last BIGINT NOT NULL
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_bin
