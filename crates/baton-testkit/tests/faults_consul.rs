//! Consul's row of the fault matrix, on the emulated Consul agent: holders as separate
//! processes taking their leases through it (directly or through the fault proxy) and writing
//! to a fenced ledger in a SQLite file beside it. Consul's sessions take TTLs from 10 s, so the
//! holders ask for that.

use baton_testkit::matrix::Store;

baton_testkit::fault_row!(Store::Consul, lease_emulation);
