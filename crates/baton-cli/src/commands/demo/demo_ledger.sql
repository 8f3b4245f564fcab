-- The demonstration's ledger: the effect of each fire, keyed by its identity (a retry of a
-- fire that had already written overwrites it, under a greater token), and one row per write
-- the fence refused.
CREATE TABLE IF NOT EXISTS demo_ledger (
    job    TEXT NOT NULL,
    fire   TEXT NOT NULL,
    token  TEXT NOT NULL,
    writes INTEGER NOT NULL DEFAULT 1,
    PRIMARY KEY (job, fire)
);
CREATE TABLE IF NOT EXISTS demo_rejected (
    id    INTEGER PRIMARY KEY,
    job   TEXT NOT NULL,
    fire  TEXT NOT NULL,
    token TEXT NOT NULL,
    fence TEXT NOT NULL
)
