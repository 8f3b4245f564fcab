//! The DynamoDB row of the fault matrix, on moto's DynamoDB emulation: holders as
//! separate processes taking their leases from it (directly or through the fault proxy) and
//! writing to a fenced ledger in a SQLite file beside it. moto keeps nothing across a restart:
//! the table comes back empty, as after a table deleted and created again, and the tokens still
//! rise (the clock term of the token).

use baton_testkit::matrix::Store;

baton_testkit::fault_row!(Store::DynamoDb, lease_server);
