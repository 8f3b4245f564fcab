//! Consul's row of the lease fault matrix, on the emulated Consul agent: holders as separate
//! processes taking their leases through it (directly or through the fault proxy) and writing
//! to a fenced ledger in a SQLite file beside it. Consul's sessions take TTLs from 10 s, so the
//! holders ask for that.

use baton_testkit::matrix::Store;

baton_testkit::fault_row!(Store::Consul;
    kill9_of_the_holder => Kill9,
    sigstop_past_the_ttl_then_sigcont => PausePastTtl,
    sigstop_from_outside_at_random_instants => RandomPauses,
    blackhole_between_the_holder_and_the_store => Cut,
    answers_lost_between_the_holder_and_the_store => AnswersLost,
    store_crash_and_restart => Restart,
    store_slow_for_twice_the_ttl => Slow,
);
