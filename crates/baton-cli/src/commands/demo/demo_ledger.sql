-- The demonstration's ledger: one row per accepted write of a job's handler.
CREATE TABLE demo_ledger (
    id    INTEGER PRIMARY KEY,
    job   TEXT NOT NULL,
    fire  TEXT NOT NULL,
    token TEXT NOT NULL
)
