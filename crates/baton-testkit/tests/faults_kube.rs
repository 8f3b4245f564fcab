//! The Kubernetes row of the fault matrix, on the emulated API server (Lease objects in a
//! real etcd): holders as separate processes taking their leases through it (directly or
//! through the fault proxy) and writing to a fenced ledger in a SQLite file beside it.

use baton_testkit::matrix::Store;

baton_testkit::fault_row!(Store::Kubernetes, lease_emulation);
