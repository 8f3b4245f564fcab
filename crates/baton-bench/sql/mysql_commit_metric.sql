-- The read-write transactions InnoDB committed since the metric was enabled, all sessions.
SELECT `COUNT` FROM information_schema.INNODB_METRICS WHERE NAME = 'trx_rw_commits'
