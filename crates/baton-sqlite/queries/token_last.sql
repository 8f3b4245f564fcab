SELECT value FROM baton_counters WHERE name = 'lease_token'
