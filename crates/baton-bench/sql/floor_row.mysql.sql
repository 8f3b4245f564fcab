-- Adds the row of one floor connection.
INSERT IGNORE INTO baton_bench_floor (id, n) VALUES (?, 0)
