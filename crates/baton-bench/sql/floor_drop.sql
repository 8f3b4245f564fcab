-- Removes the floor's scratch table.
DROP TABLE IF EXISTS baton_bench_floor
