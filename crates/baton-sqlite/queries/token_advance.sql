INSERT INTO baton_counters (name, value)
VALUES ('lease_token', ?1)
ON CONFLICT (name) DO UPDATE SET value = excluded.value
WHERE excluded.value > baton_counters.value
