-- The floor: a single-row update, committed on its own.
UPDATE baton_bench_floor SET n = n + 1 WHERE id = ?
