-- Raises job ?1's pruned watermark to ?2 (never lowers it).
INSERT INTO baton_pruned (job, through)
VALUES (?1, ?2)
ON CONFLICT (job) DO UPDATE SET through = MAX(through, excluded.through)
