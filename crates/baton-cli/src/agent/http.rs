//! The agent's HTTP surface: baton-server's API, metrics and dashboard, served on `[http]
//! listen` while the agent runs, over a [`LocalNode`] that answers for this agent.

use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use anyhow::Context;
use baton::core::schedule::JobName;
use baton::{Backend, LeaseName};
use baton_server::{LocalNode, ServerConfig};
use tokio::net::TcpListener;
use tokio::sync::{mpsc, oneshot};
use tokio::task::JoinHandle;
use tokio_util::sync::CancellationToken;

use super::config::HttpConfig;

/// What the server asks of the runtime, which owns the scheduler and the cluster.
pub enum NodeRequest {
    /// Step down from a lease; answered with whether this node held it.
    StepDown {
        /// The lease.
        lease: LeaseName,
        /// Where the answer goes.
        reply: oneshot::Sender<bool>,
    },
    /// Start a batch of a partitioned job; answered with its id, or `None` when this node
    /// does not run the job.
    StartBatch {
        /// The partitioned job.
        job: JobName,
        /// Where the answer goes.
        reply: oneshot::Sender<baton::Result<Option<i64>>>,
    },
}

/// This agent as the server sees it: its id, whether it is ready, and requests passed to the
/// runtime.
pub struct AgentNode {
    node: String,
    ready: AtomicBool,
    requests: mpsc::Sender<NodeRequest>,
}

impl AgentNode {
    /// A node not ready yet; its requests arrive on the returned receiver.
    pub fn new(node: String) -> (Arc<AgentNode>, mpsc::Receiver<NodeRequest>) {
        let (requests, received) = mpsc::channel(8);
        (Arc::new(AgentNode { node, ready: AtomicBool::new(false), requests }), received)
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
        let request = NodeRequest::StepDown { lease: lease.clone(), reply };
        if self.requests.send(request).await.is_err() {
            return Ok(false);
        }
        Ok(answer.await.unwrap_or(false))
    }

    async fn start_batch(&self, job: &JobName) -> baton::Result<Option<i64>> {
        let (reply, answer) = oneshot::channel();
        let request = NodeRequest::StartBatch { job: job.clone(), reply };
        let stopping = || {
            baton::Error::new(
                baton::ErrorKind::Unavailable,
                "the agent is stopping: no batch started",
            )
        };
        self.requests.send(request).await.map_err(|_| stopping())?;
        answer.await.map_err(|_| stopping())?
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
    /// Binds `config.listen`, before anything else of the agent starts, so that a taken port
    /// stops it before it creates or changes its store.
    pub async fn bind(config: &HttpConfig) -> anyhow::Result<TcpListener> {
        TcpListener::bind(config.listen)
            .await
            .with_context(|| format!("cannot listen on {} ([http] listen)", config.listen))
    }

    /// Serves the router over `backend` and `node` on `listener` (see [`Http::bind`]).
    pub fn start(
        listener: TcpListener,
        config: &HttpConfig,
        backend: Backend,
        node: Arc<AgentNode>,
    ) -> anyhow::Result<Http> {
        let address = listener.local_addr()?;
        let server = ServerConfig {
            admin_token: config.admin_token.clone(),
            read_token: config.read_token.clone(),
        };
        let app = baton_server::router(backend, node, server);
        let stop = CancellationToken::new();
        let serving =
            tokio::spawn(baton_server::serve(listener, app, stop.clone().cancelled_owned()));
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
