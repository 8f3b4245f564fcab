-- This server's current time in milliseconds since the Unix epoch.
SELECT baton_now_ms() AS now_ms
