-- A statement the statement-counter self-check runs inside a transaction.
SELECT 1
