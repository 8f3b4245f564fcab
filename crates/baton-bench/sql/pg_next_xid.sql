-- The next transaction id to be assigned: it moves by one for every writing transaction.
SELECT pg_snapshot_xmax(pg_current_snapshot())::TEXT::BIGINT
