-- Creates pending partitions of a batch, numbered in the order given.
-- /*rows*/ is replaced by one "(?, ?, ?, ?, 'pending', ?, ?)" per partition:
--   batch, key, params, transferable, node (NULL: any), now (ms).
INSERT INTO baton_partitions
    (batch, partition_key, params, transferable, state, node, created_at)
VALUES /*rows*/
