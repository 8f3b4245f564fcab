//! PostgreSQL's row of the fault matrix, on a throwaway server: holders as separate
//! processes, the fenced ledger in the same database.

use baton_testkit::matrix::Store;

baton_testkit::fault_row!(Store::Postgres, state_server);
