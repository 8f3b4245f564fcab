//! SQLite's row of the fault matrix: holders as separate processes sharing one file.

use baton_testkit::matrix::Store;

baton_testkit::fault_row!(Store::Sqlite, embedded);
