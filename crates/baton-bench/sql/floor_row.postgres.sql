-- Adds the row of one floor connection.
INSERT INTO baton_bench_floor (id, n) VALUES ($1, 0) ON CONFLICT (id) DO NOTHING
