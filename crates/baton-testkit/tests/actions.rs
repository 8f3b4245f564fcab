//! The action-log conformance suite against the in-memory reference, SQLite, PostgreSQL and
//! MariaDB.

use std::sync::Arc;

use async_trait::async_trait;
use baton_core::ActionStore;
use baton_core::memory::MemoryActionStore;
use baton_testkit::conformance::actions::ActionHarness;

#[derive(Default)]
struct Memory(Arc<MemoryActionStore>);

#[async_trait]
impl ActionHarness for Memory {
    async fn store(&self) -> Arc<dyn ActionStore> {
        self.0.clone()
    }
}

mod memory {
    baton_testkit::action_conformance!(super::Memory::default());
}

mod sqlite {
    baton_testkit::action_conformance!(baton_testkit::databases::SqliteFile::new());
}

mod postgres {
    baton_testkit::action_conformance!(baton_testkit::databases::PostgresDatabase::start());
}

mod mariadb {
    baton_testkit::action_conformance!(baton_testkit::databases::MariadbDatabase::start());
}
