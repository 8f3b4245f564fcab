-- Raises a job's pruned watermark (never lowers it).
--   ? job, through (ms).
INSERT INTO baton_pruned (job, through)
VALUES (?, ?)
ON DUPLICATE KEY UPDATE through = GREATEST(through, VALUES(through))
