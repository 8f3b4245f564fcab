//! The DynamoDB row of the lease fault matrix, on moto's DynamoDB emulation: holders as
//! separate processes taking their leases from it (directly or through the fault proxy) and
//! writing to a fenced ledger in a SQLite file beside it. moto keeps nothing across a restart:
//! the table comes back empty, as after a table deleted and created again, and the tokens still
//! rise (the clock term of the token).

use baton_testkit::matrix::Store;

baton_testkit::fault_row!(Store::DynamoDb;
    kill9_of_the_holder => Kill9,
    sigstop_past_the_ttl_then_sigcont => PausePastTtl,
    sigstop_from_outside_at_random_instants => RandomPauses,
    blackhole_between_the_holder_and_the_store => Cut,
    answers_lost_between_the_holder_and_the_store => AnswersLost,
    store_crash_and_restart => Restart,
    store_frozen_past_the_ttl => Stall,
    store_slow_for_twice_the_ttl => Slow,
);
