//! The Azure Blob row of the lease fault matrix, on Azurite (Microsoft's Azure Storage
//! emulator): holders as separate processes taking their blob leases from it (directly or
//! through the fault proxy) and writing to a fenced ledger in a SQLite file beside it. The
//! holders ask for the service's shortest lease, 15 s.

use baton_testkit::matrix::Store;

baton_testkit::fault_row!(Store::AzureBlob;
    kill9_of_the_holder => Kill9,
    sigstop_past_the_ttl_then_sigcont => PausePastTtl,
    sigstop_from_outside_at_random_instants => RandomPauses,
    blackhole_between_the_holder_and_the_store => Cut,
    answers_lost_between_the_holder_and_the_store => AnswersLost,
    store_crash_and_restart => Restart,
    store_frozen_past_the_ttl => Stall,
    store_slow_for_twice_the_ttl => Slow,
);
