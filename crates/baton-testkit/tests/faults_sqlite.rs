//! SQLite's row of the lease fault matrix: holders as separate processes sharing one file.

use baton_testkit::matrix::Store;

baton_testkit::fault_row!(Store::Sqlite;
    kill9_of_the_holder => Kill9,
    sigstop_past_the_ttl_then_sigcont => PausePastTtl,
    sigstop_from_outside_at_random_instants => RandomPauses,
);
