//! The action-log conformance suite (invariant I8 for operator actions): what is recorded reads
//! back in order with keyset pages, and bad input records nothing.
//!
//! Cases share one store and run in parallel: each tells its own records apart by a target
//! unique to the run.

use std::sync::Arc;

use async_trait::async_trait;
use baton_core::action::{Action, ActionListParams, ActionStore, RecordActionParams};
use baton_core::{Cursor, ErrorKind};

use super::assert_kind;

/// How the suite reaches one backend.
#[async_trait]
pub trait ActionHarness: Send + Sync {
    /// A handle on the store under test; every handle of one harness sees the same records.
    async fn store(&self) -> Arc<dyn ActionStore>;
}

/// Instantiates the action-log conformance suite: one `#[tokio::test]` per case, each calling
/// `$harness` (an expression yielding something that implements [`ActionHarness`]).
#[macro_export]
macro_rules! action_conformance {
    ($harness:expr) => {
        $crate::action_conformance!(@cases $harness;
            actions_read_back_in_order_with_pages,
            bad_actions_record_nothing,
        );
    };
    (@cases $harness:expr; $($case:ident,)*) => {
        $(
            #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
            async fn $case() {
                let harness = $harness;
                $crate::conformance::actions::$case(&harness).await;
            }
        )*
    };
}

fn params(target: &str, action: &str) -> RecordActionParams {
    RecordActionParams {
        actor: "operator".into(),
        action: action.into(),
        target: target.into(),
        detail: Some("from 127.0.0.1".into()),
    }
}

/// Every action recorded after `after` whose target is `target`, read page by page.
async fn recorded(store: &dyn ActionStore, target: &str, after: i64) -> Vec<Action> {
    let mut found = Vec::new();
    let mut cursor = Some(Cursor::after(after));
    while let Some(after) = cursor {
        let page = store
            .action_list(ActionListParams { after: Some(after), limit: 2 })
            .await
            .expect("list actions");
        assert!(page.items.len() <= 2, "a page holds at most its limit");
        found.extend(page.items.into_iter().filter(|a| a.target == target));
        cursor = page.next;
    }
    found
}

/// Actions read back as recorded, oldest first, ids and times never going back.
pub async fn actions_read_back_in_order_with_pages(h: &dyn ActionHarness) {
    let store = h.store().await;
    let target = format!("job-{:016x}", fastrand::u64(..));
    let mut mine = Vec::new();
    for action in ["job.pause", "job.trigger", "job.resume"] {
        mine.push(store.record_action(params(&target, action)).await.expect("record"));
    }
    let read = recorded(&*store, &target, mine[0].id - 1).await;
    assert_eq!(read, mine, "the actions read back as recorded");
    assert_eq!(mine[0].actor, "operator");
    assert_eq!(mine[0].detail.as_deref(), Some("from 127.0.0.1"));
    for pair in mine.windows(2) {
        assert!(pair[0].id < pair[1].id && pair[0].at <= pair[1].at, "{pair:?}");
    }
}

/// An empty or unprintable field, or an oversized detail, is refused and records nothing.
pub async fn bad_actions_record_nothing(h: &dyn ActionHarness) {
    let store = h.store().await;
    let target = format!("lease-{:016x}", fastrand::u64(..));
    let probe = store.record_action(params(&target, "lease.probe")).await.expect("record");
    let bad = [
        RecordActionParams { actor: String::new(), ..params(&target, "lease.force_release") },
        RecordActionParams { action: "bad\naction".into(), ..params(&target, "x") },
        RecordActionParams { target: "t".repeat(201), ..params(&target, "x") },
        RecordActionParams { detail: Some("d".repeat(2001)), ..params(&target, "x") },
    ];
    for params in bad {
        assert_kind(store.record_action(params).await, ErrorKind::InvalidInput, "a bad action");
    }
    assert_eq!(recorded(&*store, &target, probe.id).await, Vec::new(), "nothing was recorded");
    let zero = store.action_list(ActionListParams { after: None, limit: 0 }).await;
    assert_kind(zero, ErrorKind::InvalidInput, "a page of 0");
}
