//! The lease conformance suite against the in-memory reference backend.

use std::sync::Arc;

use async_trait::async_trait;
use baton_core::memory::MemoryLeaseStore;
use baton_core::{LeaseName, LeaseStore};
use baton_testkit::conformance::lease::LeaseHarness;

#[derive(Default)]
struct Memory(Arc<MemoryLeaseStore>);

#[async_trait]
impl LeaseHarness for Memory {
    async fn store(&self) -> Arc<dyn LeaseStore> {
        self.0.clone()
    }

    async fn delete_record(&self, name: &LeaseName) {
        self.0.delete(name);
    }
}

baton_testkit::lease_conformance!(Memory::default());
