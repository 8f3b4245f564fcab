//! MariaDB's row of the fault matrix, on a throwaway server: holders as separate
//! processes taking their leases from MariaDB (directly or through the fault proxy) and writing
//! to a fenced ledger in MariaDB too (through `baton_mysql::check_and_bump`).

use baton_testkit::matrix::Store;

baton_testkit::fault_row!(Store::Mariadb, state_server);
