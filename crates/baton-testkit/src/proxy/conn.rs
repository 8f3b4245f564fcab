//! One proxied connection: a client socket, its upstream socket, and a pump per direction.

use std::future::pending;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;
use tokio::net::tcp::{ReadHalf, WriteHalf};
use tokio::sync::{mpsc, watch};
use tokio::time::Instant;

use super::{Direction, Mode, Shared};

/// Bytes read from a socket in one go.
const CHUNK: usize = 16 * 1024;
/// Chunks queued per direction between the reader and the writer (they wait there under delay).
const QUEUE: usize = 128;

/// Counts a connection as live for as long as it exists, however its task ends.
pub(super) struct LiveGuard(Arc<Shared>);

impl LiveGuard {
    pub(super) fn new(shared: Arc<Shared>) -> LiveGuard {
        shared.live.send_modify(|count| *count += 1);
        LiveGuard(shared)
    }
}

impl Drop for LiveGuard {
    fn drop(&mut self) {
        self.0.live.send_modify(|count| *count -= 1);
    }
}

/// Serves one accepted client until the connection ends or is reset.
pub(super) async fn serve(client: TcpStream, guard: LiveGuard) {
    let shared = &guard.0;
    let mut mode = shared.mode.subscribe();
    let _ = client.set_nodelay(true);
    let initial = *mode.borrow_and_update();
    match initial {
        Mode::Reset => return reset(client),
        Mode::Blackhole => {
            // Partitioned from the start: the upstream is unreachable. The connection is cut in
            // both directions, so whatever comes next ends it.
            let _ = mode.wait_for(|mode| *mode != Mode::Blackhole).await;
            return reset(client);
        }
        _ => {}
    }
    let upstream = match TcpStream::connect(shared.upstream).await {
        Ok(upstream) => upstream,
        Err(err) => {
            tracing::debug!(upstream = %shared.upstream, %err, "fault proxy cannot reach upstream");
            return reset(client);
        }
    };
    let _ = upstream.set_nodelay(true);
    let (mut client, mut upstream) = (client, upstream);
    if link(&mut client, &mut upstream, mode, shared).await == End::Reset {
        reset(client);
        reset(upstream);
    }
}

/// Closes a socket with `RST` rather than `FIN`.
fn reset(stream: TcpStream) {
    let _ = stream.set_zero_linger();
    drop(stream);
}

/// How a connection ends.
#[derive(Debug, PartialEq, Eq)]
enum End {
    /// Both directions were closed cleanly: drop the sockets normally.
    Close,
    /// Reset both sides.
    Reset,
}

/// Which directions of one connection have lost bytes (or would have: a lossy mode applied).
#[derive(Default)]
struct Cuts {
    to_upstream: AtomicBool,
    to_client: AtomicBool,
}

impl Cuts {
    fn flag(&self, dir: Direction) -> &AtomicBool {
        match dir {
            Direction::ToUpstream => &self.to_upstream,
            Direction::ToClient => &self.to_client,
        }
    }

    fn mark(&self, dir: Direction) {
        self.flag(dir).store(true, Ordering::Relaxed);
    }

    /// Marks the directions `mode` does not forward.
    fn apply(&self, mode: Mode) {
        for dir in Direction::BOTH {
            if !mode.forwards(dir) {
                self.mark(dir);
            }
        }
    }

    /// Whether the connection must be reset under `mode`: reset mode, or a cut direction that
    /// would be forwarded again.
    fn must_reset(&self, mode: Mode) -> bool {
        mode == Mode::Reset
            || Direction::BOTH
                .into_iter()
                .any(|dir| mode.forwards(dir) && self.flag(dir).load(Ordering::Relaxed))
    }
}

/// Pumps both directions and watches the mode until the connection ends.
async fn link(
    client: &mut TcpStream,
    upstream: &mut TcpStream,
    mut mode: watch::Receiver<Mode>,
    shared: &Shared,
) -> End {
    let cuts = Cuts::default();
    let (client_read, client_write) = client.split();
    let (upstream_read, upstream_write) = upstream.split();
    let to_upstream =
        pump(client_read, upstream_write, Direction::ToUpstream, mode.clone(), &cuts, shared);
    let to_client =
        pump(upstream_read, client_write, Direction::ToClient, mode.clone(), &cuts, shared);
    let pumps = async { tokio::try_join!(to_upstream, to_client) };
    tokio::pin!(pumps);
    loop {
        let current = *mode.borrow_and_update();
        if cuts.must_reset(current) {
            return End::Reset;
        }
        cuts.apply(current);
        tokio::select! {
            done = &mut pumps => return if done.is_ok() { End::Close } else { End::Reset },
            changed = mode.changed() => {
                if changed.is_err() {
                    return End::Close;
                }
            }
        }
    }
}

/// What a reader saw.
enum Event {
    Data(Vec<u8>),
    /// The sender closed its side cleanly.
    Eof,
    /// The socket failed (typically a reset by the peer).
    Failed,
}

/// An event and when the proxy read it.
struct Chunk {
    at: Instant,
    event: Event,
}

/// Forwards one direction. `Err` means the connection must be reset.
async fn pump(
    mut src: ReadHalf<'_>,
    dst: WriteHalf<'_>,
    dir: Direction,
    mode: watch::Receiver<Mode>,
    cuts: &Cuts,
    shared: &Shared,
) -> Result<(), ()> {
    let (tx, rx) = mpsc::channel(QUEUE);
    let read = async move {
        let mut buf = vec![0; CHUNK];
        loop {
            let event = match src.read(&mut buf).await {
                Ok(0) => Event::Eof,
                Ok(n) => Event::Data(buf[..n].to_vec()),
                Err(_) => Event::Failed,
            };
            let last = !matches!(event, Event::Data(_));
            let chunk = Chunk { at: Instant::now(), event };
            if tx.send(chunk).await.is_err() || last {
                return Ok(());
            }
        }
    };
    let write = deliver(rx, dst, dir, mode, cuts, shared);
    tokio::try_join!(read, write).map(|_| ())
}

/// Writes (or drops) queued chunks as the mode dictates.
async fn deliver(
    mut rx: mpsc::Receiver<Chunk>,
    mut dst: WriteHalf<'_>,
    dir: Direction,
    mut mode: watch::Receiver<Mode>,
    cuts: &Cuts,
    shared: &Shared,
) -> Result<(), ()> {
    while let Some(chunk) = rx.recv().await {
        if !due(&chunk, dir, &mut mode, shared).await {
            cuts.mark(dir);
            match chunk.event {
                Event::Data(_) => continue,
                // The end of the stream is lost too: the peer keeps waiting, and the connection
                // is reset when this direction is forwarded again.
                Event::Eof | Event::Failed => return pending().await,
            }
        }
        match chunk.event {
            Event::Data(bytes) => dst.write_all(&bytes).await.map_err(drop)?,
            Event::Eof => {
                let _ = dst.shutdown().await;
                return Ok(());
            }
            Event::Failed => return Err(()),
        }
    }
    Ok(())
}

/// Waits until `chunk` may be written under the current mode: `true` to write it, `false` to
/// drop it. A chunk that has to wait is counted as delayed.
async fn due(
    chunk: &Chunk,
    dir: Direction,
    mode: &mut watch::Receiver<Mode>,
    shared: &Shared,
) -> bool {
    let mut counted = false;
    loop {
        let current = *mode.borrow_and_update();
        if !current.forwards(dir) {
            return false;
        }
        let Mode::Delay(delay) = current else { return true };
        let deadline = chunk.at.checked_add(delay);
        if deadline.is_some_and(|deadline| deadline <= Instant::now()) {
            return true;
        }
        if !counted {
            counted = true;
            shared.delayed.send_modify(|count| *count += 1);
        }
        let expiry = async {
            match deadline {
                Some(deadline) => tokio::time::sleep_until(deadline).await,
                None => pending().await,
            }
        };
        tokio::select! {
            () = expiry => return true,
            changed = mode.changed() => {
                if changed.is_err() {
                    return true;
                }
            }
        }
    }
}
