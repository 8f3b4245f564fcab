-- Whether idle nodes steal the pending partitions of a batch from the node with the most.
ALTER TABLE baton_batches ADD COLUMN stealing BOOLEAN NOT NULL DEFAULT FALSE AFTER strategy
