-- Turns on InnoDB's count of committed read-write transactions (off by default).
SET GLOBAL innodb_monitor_enable = 'trx_rw_commits'
