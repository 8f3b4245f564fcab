-- The floor's scratch table: one row per connection.
CREATE TABLE IF NOT EXISTS baton_bench_floor (id INT PRIMARY KEY, n BIGINT NOT NULL) ENGINE = InnoDB
