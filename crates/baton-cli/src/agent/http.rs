//! The agent's HTTP surface: baton-server's API, metrics and dashboard, served on `[http]
//! listen` while the agent runs, over a [`LocalNode`] that answers for this agent.

use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use anyhow::Context;
use baton::{Backend, LeaseName};
use baton_server::{LocalNode, ServerConfig};
use tokio::net::TcpListener;
use tokio::sync::{mpsc, oneshot};
use tokio::task::JoinHandle;
use tokio_util::sync::CancellationToken;

use super::config::HttpConfig;

/// A request to step down from a lease, answered with whether this node held it.
pub struct StepDownRequest {
    /// The lease.
    pub lease: LeaseName,
    /// Where the answer goes.
    pub reply: oneshot::Sender<bool>,
}

/// This agent as the server sees it: its id, whether it is ready, and step-down requests
/// passed to the runtime, which owns the scheduler and the cluster.
pub struct AgentNode {
    node: String,
    ready: AtomicBool,
    step_downs: mpsc::Sender<StepDownRequest>,
}

impl AgentNode {
    /// A node not ready yet; step-down requests arrive on the returned receiver.
    pub fn new(node: String) -> (Arc<AgentNode>, mpsc::Receiver<StepDownRequest>) {
        let (step_downs, requests) = mpsc::channel(8);
        (Arc::new(AgentNode { node, ready: AtomicBool::new(false), step_downs }), requests)
    }

    /// Marks the node ready (registered and running) or not (starting or stopping).
    pub fn set_ready(&self, ready: bool) {
        self.ready.store(ready, Ordering::SeqCst);
    }
}

#[async_trait::async_trait]
impl LocalNode for AgentNode {
    fn node_id(&self) -> String {
        self.node.clone()
    }

    fn is_ready(&self) -> bool {
        self.ready.load(Ordering::SeqCst)
    }

    async fn step_down(&self, lease: &LeaseName) -> baton::Result<bool> {
        let (reply, answer) = oneshot::channel();
        let request = StepDownRequest { lease: lease.clone(), reply };
        if self.step_downs.send(request).await.is_err() {
            return Ok(false);
        }
        Ok(answer.await.unwrap_or(false))
    }
}

/// The server, bound and serving until [`Http::stop`].
pub struct Http {
    /// The address it listens on (the configured one, with the port chosen when it was 0).
    pub address: SocketAddr,
    stop: CancellationToken,
    serving: JoinHandle<std::io::Result<()>>,
}

impl Http {
    /// Binds `config.listen` and serves the router over `backend` and `node`.
    pub async fn start(
        config: &HttpConfig,
        backend: Backend,
        node: Arc<AgentNode>,
    ) -> anyhow::Result<Http> {
        let listener = TcpListener::bind(config.listen)
            .await
            .with_context(|| format!("cannot listen on {} ([http] listen)", config.listen))?;
        let address = listener.local_addr()?;
        let server = ServerConfig {
            admin_token: config.admin_token.clone(),
            read_token: config.read_token.clone(),
        };
        let app = baton_server::router(backend, node, server)
            .into_make_service_with_connect_info::<SocketAddr>();
        let stop = CancellationToken::new();
        let serving = tokio::spawn(
            axum::serve(listener, app)
                .with_graceful_shutdown(stop.clone().cancelled_owned())
                .into_future(),
        );
        Ok(Http { address, stop, serving })
    }

    /// Stops taking connections and waits for those open to finish.
    pub async fn stop(self) {
        self.stop.cancel();
        match self.serving.await {
            Ok(Ok(())) => {}
            Ok(Err(err)) => tracing::warn!(%err, "the HTTP server failed"),
            Err(err) => tracing::warn!(%err, "the HTTP server task failed"),
        }
    }
}
