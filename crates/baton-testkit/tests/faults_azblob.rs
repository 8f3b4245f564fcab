//! The Azure Blob row of the fault matrix, on Azurite (Microsoft's Azure Storage
//! emulator): holders as separate processes taking their blob leases from it (directly or
//! through the fault proxy) and writing to a fenced ledger in a SQLite file beside it. The
//! holders ask for the service's shortest lease, 15 s.

use baton_testkit::matrix::Store;

baton_testkit::fault_row!(Store::AzureBlob, lease_server);
