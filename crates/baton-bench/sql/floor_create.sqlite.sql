-- The floor's scratch table: one row per connection.
CREATE TABLE IF NOT EXISTS baton_bench_floor (id INTEGER PRIMARY KEY, n INTEGER NOT NULL)
