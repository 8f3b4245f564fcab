//! The cluster-store conformance suite against a throwaway MariaDB server, one server (and so
//! one fresh database) per case, since sweeps and reassignments act on every node of a store.

use baton_testkit::databases::MariadbDatabase;

baton_testkit::cluster_conformance!(MariadbDatabase::start());
