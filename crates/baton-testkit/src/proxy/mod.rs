//! A TCP fault-injecting proxy for partition tests.
//!
//! [`FaultProxy`] sits between a node and a store: the node connects to [`FaultProxy::addr`]
//! instead of the store, and every accepted connection is paired with a fresh connection to the
//! upstream address. Bytes are pumped both ways until the test switches the [`Mode`], which takes
//! effect at once on live connections and on the ones accepted afterwards. Both ends keep running
//! throughout; only the link between them misbehaves.
//!
//! # Partitions and heal
//!
//! [`Mode::Blackhole`] and [`Mode::OneWay`] model a network partition: the proxy keeps reading
//! from both sockets (so senders see their writes succeed, as they would on a real network) and
//! drops what it cannot deliver, end-of-stream included. A connection is *cut* in a direction as
//! soon as a mode that does not forward that direction applies to it, whether or not bytes were
//! actually lost. When the mode later changes to one that forwards a cut direction again, the
//! connection is reset on both sides (`RST`): its byte stream has a hole, so it cannot carry on.
//! This is what a real connection does after a partition that outlasts TCP's retransmission
//! timeout: the peers find the connection dead on heal, and new connections work. Lost bytes are
//! never replayed.

mod conn;

use std::io;
use std::net::{Ipv4Addr, SocketAddr};
use std::sync::Arc;
use std::time::Duration;

use tokio::net::TcpListener;
use tokio::sync::watch;
use tokio::task::{JoinHandle, JoinSet};

/// A direction of traffic through the proxy.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Direction {
    /// From the client (the side that connected to the proxy) to the upstream server.
    ToUpstream,
    /// From the upstream server back to the client.
    ToClient,
}

impl Direction {
    const BOTH: [Direction; 2] = [Direction::ToUpstream, Direction::ToClient];
}

/// What the proxy does with traffic. Set with [`FaultProxy::set_mode`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[non_exhaustive]
pub enum Mode {
    /// Forward everything in both directions (the default).
    #[default]
    Pass,
    /// Forward nothing in either direction while keeping every connection open. Bytes read are
    /// dropped. Connections accepted in this mode are never connected upstream. On leaving this
    /// mode every connection that lived through it is reset (see the [module docs](self)).
    Blackhole,
    /// Reset (`RST`, via `SO_LINGER` 0) every live connection on both sides, and reset every new
    /// connection as soon as it is accepted.
    Reset,
    /// Forward every chunk once it has waited this long in the proxy, in each direction, keeping
    /// order: a request/response round trip costs at least twice this. Chunks already waiting
    /// when the mode changes follow the new mode (for instance, switching to [`Mode::Pass`]
    /// releases them at once).
    Delay(Duration),
    /// Forward only in the given direction and drop the other one (an asymmetric partition).
    /// Connections are cut in the dropped direction, and reset when it is forwarded again.
    OneWay(Direction),
}

impl Mode {
    /// Whether this mode forwards bytes travelling in `dir` (possibly late).
    fn forwards(self, dir: Direction) -> bool {
        match self {
            Mode::Pass | Mode::Delay(_) => true,
            Mode::Blackhole | Mode::Reset => false,
            Mode::OneWay(open) => open == dir,
        }
    }
}

/// State shared by the proxy handle, the acceptor and the connection tasks.
struct Shared {
    upstream: SocketAddr,
    mode: watch::Sender<Mode>,
    /// Connections currently held open by the proxy.
    live: watch::Sender<usize>,
    /// Connections accepted since start.
    accepted: watch::Sender<usize>,
    /// Chunks that have been held under [`Mode::Delay`] since start.
    delayed: watch::Sender<usize>,
}

/// A TCP proxy on `127.0.0.1` that forwards to one upstream address and injects faults on demand.
///
/// Each accepted client gets its own upstream connection; if the upstream cannot be reached, the
/// client is reset. A clean close (`FIN`) on one side is forwarded as a half-close, and a reset on
/// one side resets the other, as long as the mode forwards that direction.
///
/// Dropping it stops the listener and aborts every connection task (their sockets are closed);
/// [`FaultProxy::shutdown`] does the same and waits until all of them are gone.
pub struct FaultProxy {
    addr: SocketAddr,
    shared: Arc<Shared>,
    stop: watch::Sender<bool>,
    acceptor: Option<JoinHandle<()>>,
}

impl FaultProxy {
    /// Listens on `127.0.0.1` on a free port and starts forwarding accepted connections to
    /// `upstream`, in [`Mode::Pass`]. Must be called within a tokio runtime.
    pub async fn start(upstream: SocketAddr) -> io::Result<FaultProxy> {
        let listener = TcpListener::bind((Ipv4Addr::LOCALHOST, 0)).await?;
        let addr = listener.local_addr()?;
        let shared = Arc::new(Shared {
            upstream,
            mode: watch::Sender::new(Mode::Pass),
            live: watch::Sender::new(0),
            accepted: watch::Sender::new(0),
            delayed: watch::Sender::new(0),
        });
        let (stop, stopped) = watch::channel(false);
        let acceptor = tokio::spawn(accept_loop(listener, shared.clone(), stopped));
        Ok(FaultProxy { addr, shared, stop, acceptor: Some(acceptor) })
    }

    /// The address clients should connect to instead of the upstream.
    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// The upstream address every connection is forwarded to.
    pub fn upstream(&self) -> SocketAddr {
        self.shared.upstream
    }

    /// Switches the mode; it applies immediately to live connections and to new ones.
    pub fn set_mode(&self, mode: Mode) {
        self.shared.mode.send_replace(mode);
        crate::history::nemesis(&format!("proxy {mode:?}"), &self.addr.to_string());
        tracing::debug!(proxy = %self.addr, ?mode, "fault proxy mode");
    }

    /// The current mode.
    pub fn mode(&self) -> Mode {
        *self.shared.mode.borrow()
    }

    /// How many client connections the proxy currently holds open (each with its upstream
    /// connection, except those accepted under [`Mode::Blackhole`]).
    pub fn connection_count(&self) -> usize {
        *self.shared.live.borrow()
    }

    /// How many client connections the proxy has accepted since it started, including those it
    /// reset or blackholed.
    pub fn accepted_count(&self) -> usize {
        *self.shared.accepted.borrow()
    }

    /// How many chunks of bytes, in either direction, the proxy has held under [`Mode::Delay`]
    /// since it started.
    pub fn delayed_count(&self) -> usize {
        *self.shared.delayed.borrow()
    }

    /// Waits until at least `n` chunks have been held under [`Mode::Delay`] since start: for
    /// instance, until a request is known to be waiting in the proxy. Wrap it in a timeout.
    pub async fn wait_delayed(&self, n: usize) {
        let mut delayed = self.shared.delayed.subscribe();
        let _ = delayed.wait_for(|count| *count >= n).await;
    }

    /// Waits until at least `n` client connections have been accepted since start. Wrap it in a
    /// timeout: it waits forever if no client comes.
    pub async fn wait_accepted(&self, n: usize) {
        let mut accepted = self.shared.accepted.subscribe();
        // The sender lives in `self`, so the wait cannot fail.
        let _ = accepted.wait_for(|count| *count >= n).await;
    }

    /// Waits until exactly `n` client connections are held open, for instance 0 after a reset.
    /// Wrap it in a timeout.
    pub async fn wait_connection_count(&self, n: usize) {
        let mut live = self.shared.live.subscribe();
        let _ = live.wait_for(|count| *count == n).await;
    }

    /// Stops the listener, closes every connection and waits until every task is gone.
    ///
    /// # Panics
    ///
    /// Resumes the panic of a connection task, if one panicked.
    pub async fn shutdown(mut self) {
        self.stop.send_replace(true);
        if let Some(acceptor) = self.acceptor.take()
            && let Err(err) = acceptor.await
            && err.is_panic()
        {
            std::panic::resume_unwind(err.into_panic());
        }
    }
}

impl Drop for FaultProxy {
    fn drop(&mut self) {
        self.stop.send_replace(true);
        if let Some(acceptor) = self.acceptor.take() {
            // Aborting the acceptor drops its JoinSet, which aborts every connection task.
            acceptor.abort();
        }
    }
}

impl std::fmt::Debug for FaultProxy {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("FaultProxy")
            .field("addr", &self.addr)
            .field("upstream", &self.shared.upstream)
            .field("mode", &self.mode())
            .field("connections", &self.connection_count())
            .finish()
    }
}

/// Accepts clients until told to stop, then closes every connection and waits for its task.
async fn accept_loop(listener: TcpListener, shared: Arc<Shared>, mut stop: watch::Receiver<bool>) {
    let mut conns = JoinSet::new();
    loop {
        tokio::select! {
            biased;
            // The only change ever sent is the stop signal; a dropped sender also means stop.
            _ = stop.changed() => break,
            Some(done) = conns.join_next(), if !conns.is_empty() => {
                if let Err(err) = done
                    && err.is_panic()
                {
                    std::panic::resume_unwind(err.into_panic());
                }
            }
            accepted = listener.accept() => match accepted {
                Ok((client, peer)) => {
                    tracing::trace!(%peer, "fault proxy accepted");
                    // Counted live first, so a waiter on `accepted` already sees it live.
                    let guard = conn::LiveGuard::new(shared.clone());
                    shared.accepted.send_modify(|count| *count += 1);
                    conns.spawn(conn::serve(client, guard));
                }
                Err(err) => {
                    // Usually a client that went away before accept, or a descriptor shortage:
                    // back off briefly rather than spin.
                    tracing::debug!(%err, "fault proxy accept failed");
                    tokio::time::sleep(Duration::from_millis(10)).await;
                }
            },
        }
    }
    conns.shutdown().await;
}
