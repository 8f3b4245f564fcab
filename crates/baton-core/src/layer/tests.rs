use std::sync::{Arc, Mutex};

use super::{CallFuture, Layer, Layered};
use crate::error::{Error, ErrorKind};
use crate::job::{CompleteParams, JobStore};
use crate::lease::{AcquireOutcome, AcquireParams, FencingToken, HolderId, LeaseStore};
use crate::memory::{MemoryJobStore, MemoryLeaseStore};
use crate::{ExecutionStatus, LeaseName};

/// Records the name of every call it sees; refuses the ones named in `refuse`.
#[derive(Default)]
struct Recorder {
    seen: Mutex<Vec<&'static str>>,
    refuse: Vec<&'static str>,
}

impl Layer for Recorder {
    fn call<'a, T: Send + 'a>(
        &'a self,
        op: &'static str,
        call: CallFuture<'a, T>,
    ) -> CallFuture<'a, T> {
        self.seen.lock().unwrap().push(op);
        if self.refuse.contains(&op) {
            return Box::pin(async move {
                Err(Error::new(ErrorKind::Timeout, format!("{op} refused")))
            });
        }
        call
    }
}

#[tokio::test]
async fn every_call_passes_the_layer_under_its_name_and_answers_the_inner_store() {
    let inner: Arc<dyn LeaseStore> = Arc::new(MemoryLeaseStore::default());
    let store = Layered::new(inner, Recorder::default());
    let name: LeaseName = "job".parse().unwrap();
    let params = AcquireParams {
        name: name.clone(),
        holder: HolderId::new("a").unwrap(),
        ttl: std::time::Duration::from_secs(5),
    };
    let outcome = store.acquire(params).await.unwrap();
    assert!(matches!(outcome, AcquireOutcome::Acquired { .. }));
    assert!(store.get(&name).await.unwrap().is_some());
    assert_eq!(*store.layer().seen.lock().unwrap(), ["lease_acquire", "lease_get"]);
}

#[tokio::test]
async fn a_refused_batch_fails_each_of_its_items() {
    let inner: Arc<dyn JobStore> = Arc::new(MemoryJobStore::new());
    let layer = Recorder { refuse: vec!["complete_batch"], ..Recorder::default() };
    let store = Layered::new(inner, layer);
    let item = |id| CompleteParams {
        id,
        token: FencingToken::new(1).unwrap(),
        status: ExecutionStatus::Succeeded,
        detail: None,
        output: None,
    };
    let results = store.complete_batch(vec![item(1), item(2)]).await;
    assert_eq!(results.len(), 2);
    for result in results {
        let err = result.unwrap_err();
        assert_eq!(err.kind(), ErrorKind::Timeout);
        assert!(err.to_string().contains("complete_batch refused"), "{err}");
    }
    assert_eq!(*store.layer().seen.lock().unwrap(), ["complete_batch"]);
}
