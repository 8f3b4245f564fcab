//! PostgreSQL's row of the lease fault matrix, on a throwaway server: holders as separate
//! processes, the fenced ledger in the same database.

use baton_testkit::matrix::Store;

baton_testkit::fault_row!(Store::Postgres;
    kill9_of_the_holder => Kill9,
    sigstop_past_the_ttl_then_sigcont => PausePastTtl,
    sigstop_from_outside_at_random_instants => RandomPauses,
    blackhole_between_the_holder_and_the_store => Cut,
    answers_lost_between_the_holder_and_the_store => AnswersLost,
    store_crash_and_restart => Restart,
    store_frozen_past_the_ttl => Stall,
    store_slow_for_twice_the_ttl => Slow,
);
