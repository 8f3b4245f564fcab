-- Makes this session flush its pending statistics as soon as it goes idle (PostgreSQL 15+).
SELECT pg_stat_force_next_flush()
