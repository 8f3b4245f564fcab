//! What every handler shares.

use std::sync::Arc;

use crate::metrics::Collector;
use crate::tail::Hint;
use crate::{LocalNode, ServerConfig};

/// The backend, this node, the configuration and the metrics collector, cloned into every
/// handler.
#[derive(Clone)]
pub(crate) struct AppState {
    /// The stores.
    pub backend: baton::Backend,
    /// The node this server runs in.
    pub node: Arc<dyn LocalNode>,
    /// Tokens.
    pub config: Arc<ServerConfig>,
    /// What the metrics endpoint remembers between scrapes.
    pub collector: Arc<Collector>,
    /// Where the last searches for the newest records ended.
    pub hints: Arc<Hints>,
}

/// The greatest ids last found in the listings the pages show newest first.
#[derive(Debug, Default)]
pub(crate) struct Hints {
    /// Executions.
    pub executions: Hint,
    /// Leader changes.
    pub history: Hint,
    /// Batches.
    pub batches: Hint,
}

#[cfg(test)]
impl AppState {
    /// A state over `backend` with a node that is ready and holds nothing, and no tokens.
    pub fn for_tests(backend: baton::Backend) -> Self {
        struct Idle;
        #[async_trait::async_trait]
        impl LocalNode for Idle {
            fn node_id(&self) -> String {
                "test-node".into()
            }
            fn is_ready(&self) -> bool {
                true
            }
            async fn step_down(&self, _: &baton::LeaseName) -> baton::Result<bool> {
                Ok(false)
            }
        }
        AppState {
            backend,
            node: Arc::new(Idle),
            config: Arc::new(ServerConfig::default()),
            collector: Arc::new(Collector::default()),
            hints: Arc::new(Hints::default()),
        }
    }
}
