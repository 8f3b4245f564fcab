//! The TCP fault proxy against an echo server on loopback.

use std::future::Future;
use std::io::ErrorKind;
use std::net::SocketAddr;
use std::time::Duration;

use baton_testkit::proxy::{Direction, FaultProxy, Mode};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::mpsc;
use tokio::time::{Instant, timeout};

/// How long anything that should happen promptly may take before the test fails.
const PROMPT: Duration = Duration::from_secs(10);
/// How long a fault is observed when the expected outcome is that nothing arrives.
const QUIET: Duration = Duration::from_millis(300);

/// What the echo server saw.
#[derive(Debug)]
enum Seen {
    Connected,
    Bytes(Vec<u8>),
}

/// An echo server on loopback that reports each connection and each chunk it receives.
async fn echo_server() -> (SocketAddr, mpsc::UnboundedReceiver<Seen>) {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let (tx, rx) = mpsc::unbounded_channel();
    tokio::spawn(async move {
        while let Ok((mut socket, _)) = listener.accept().await {
            let tx = tx.clone();
            let _ = tx.send(Seen::Connected);
            tokio::spawn(async move {
                let mut buf = vec![0; 4096];
                loop {
                    match socket.read(&mut buf).await {
                        Ok(0) | Err(_) => break,
                        Ok(n) => {
                            let _ = tx.send(Seen::Bytes(buf[..n].to_vec()));
                            if socket.write_all(&buf[..n]).await.is_err() {
                                return;
                            }
                        }
                    }
                }
                let _ = socket.shutdown().await;
            });
        }
    });
    (addr, rx)
}

/// Fails the test if `fut` does not finish promptly.
async fn prompt<F: Future>(what: &str, fut: F) -> F::Output {
    match timeout(PROMPT, fut).await {
        Ok(out) => out,
        Err(_) => panic!("{what}: nothing after {PROMPT:?}"),
    }
}

/// Sends `msg` and expects it echoed back.
async fn round_trip(client: &mut TcpStream, msg: &[u8]) {
    client.write_all(msg).await.unwrap();
    let mut back = vec![0; msg.len()];
    prompt("echo", client.read_exact(&mut back)).await.unwrap();
    assert_eq!(back, msg);
}

/// Expects the server to have received exactly `msg`, possibly in several chunks.
async fn server_gets(seen: &mut mpsc::UnboundedReceiver<Seen>, msg: &[u8]) {
    let mut got = Vec::new();
    while got.len() < msg.len() {
        match prompt("server bytes", seen.recv()).await.unwrap() {
            Seen::Bytes(bytes) => got.extend(bytes),
            Seen::Connected => {}
        }
    }
    assert_eq!(got, msg);
}

/// Expects the server to see a new connection.
async fn server_connected(seen: &mut mpsc::UnboundedReceiver<Seen>) {
    match prompt("server connection", seen.recv()).await.unwrap() {
        Seen::Connected => {}
        other => panic!("expected a connection, got {other:?}"),
    }
}

/// Expects nothing to be readable for [`QUIET`] (the fault under test).
async fn silent(client: &mut TcpStream) {
    let mut buf = [0; 64];
    if let Ok(read) = timeout(QUIET, client.read(&mut buf)).await {
        panic!("expected silence, read {read:?}");
    }
}

/// Expects the connection to be closed promptly, by a reset or an end of stream.
async fn closed(client: &mut TcpStream) {
    let mut buf = [0; 64];
    match prompt("close", client.read(&mut buf)).await {
        Ok(0) => {}
        Err(err)
            if matches!(err.kind(), ErrorKind::ConnectionReset | ErrorKind::ConnectionAborted) => {}
        other => panic!("expected a closed connection, read {other:?}"),
    }
}

/// Expects the connection to be reset promptly.
async fn reset(client: &mut TcpStream) {
    let mut buf = [0; 64];
    match prompt("reset", client.read(&mut buf)).await {
        Err(err) if err.kind() == ErrorKind::ConnectionReset => {}
        other => panic!("expected a reset, read {other:?}"),
    }
}

async fn connect(proxy: &FaultProxy) -> TcpStream {
    let client = TcpStream::connect(proxy.addr()).await.unwrap();
    // Fails if the proxy already reset the connection; the read that follows reports that.
    let _ = client.set_nodelay(true);
    client
}

/// Connects and expects the proxy to reset the connection promptly: the reset may already be
/// reported by the connect, or by the first read.
async fn connect_and_reset(proxy: &FaultProxy) {
    match TcpStream::connect(proxy.addr()).await {
        Ok(mut client) => reset(&mut client).await,
        Err(err) => assert_eq!(err.kind(), ErrorKind::ConnectionReset, "connect failed: {err}"),
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn pass_echoes_both_ways_and_half_closes() {
    let (upstream, mut seen) = echo_server().await;
    let proxy = FaultProxy::start(upstream).await.unwrap();
    assert_eq!(proxy.mode(), Mode::Pass);
    assert_eq!(proxy.upstream(), upstream);

    let mut client = connect(&proxy).await;
    round_trip(&mut client, b"hello").await;
    server_connected(&mut seen).await;
    server_gets(&mut seen, b"hello").await;
    assert_eq!(proxy.connection_count(), 1);
    assert_eq!(proxy.accepted_count(), 1);

    // A large transfer arrives intact and in order.
    let big: Vec<u8> = (0..200_000u32).map(|i| (i % 251) as u8).collect();
    let (mut read, mut write) = client.split();
    let send = async {
        write.write_all(&big).await.unwrap();
        // Half-close: the echo server answers with the rest, then its own end of stream.
        write.shutdown().await.unwrap();
    };
    let mut back = Vec::new();
    let receive = read.read_to_end(&mut back);
    let ((), received) = prompt("big echo", async { tokio::join!(send, receive) }).await;
    received.unwrap();
    assert_eq!(back, big);
    drop(client);
    prompt("connection gone", proxy.wait_connection_count(0)).await;
    proxy.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn counts_and_waits_for_connections() {
    let (upstream, _seen) = echo_server().await;
    let proxy = FaultProxy::start(upstream).await.unwrap();
    let mut clients = Vec::new();
    for _ in 0..3 {
        clients.push(connect(&proxy).await);
    }
    prompt("three accepted", proxy.wait_accepted(3)).await;
    prompt("three live", proxy.wait_connection_count(3)).await;
    for client in &mut clients {
        round_trip(client, b"x").await;
    }
    clients.clear();
    prompt("none live", proxy.wait_connection_count(0)).await;
    assert_eq!(proxy.accepted_count(), 3);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn blackhole_forwards_nothing_and_heal_resets_cut_connections() {
    let (upstream, mut seen) = echo_server().await;
    let proxy = FaultProxy::start(upstream).await.unwrap();
    let mut before = connect(&proxy).await;
    round_trip(&mut before, b"before").await;
    server_connected(&mut seen).await;
    server_gets(&mut seen, b"before").await;

    proxy.set_mode(Mode::Blackhole);
    // The write succeeds, as on a real network, but nothing comes back.
    before.write_all(b"lost").await.unwrap();
    silent(&mut before).await;

    // A new connection is accepted and held open, but never reaches the server.
    let mut during = connect(&proxy).await;
    prompt("accepted during the partition", proxy.wait_accepted(2)).await;
    during.write_all(b"also lost").await.unwrap();
    silent(&mut during).await;
    assert_eq!(proxy.connection_count(), 2);
    // Nothing reached the server: neither the bytes nor the second connection.
    assert!(seen.try_recv().is_err(), "the server saw traffic during the partition");

    // Heal: the cut connections are reset, like connections that timed out during the partition.
    proxy.set_mode(Mode::Pass);
    reset(&mut before).await;
    reset(&mut during).await;
    prompt("cut connections gone", proxy.wait_connection_count(0)).await;

    // New connections work, and the lost bytes were never replayed.
    let mut after = connect(&proxy).await;
    round_trip(&mut after, b"after").await;
    server_connected(&mut seen).await;
    server_gets(&mut seen, b"after").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn reset_closes_live_and_new_connections() {
    let (upstream, _seen) = echo_server().await;
    let proxy = FaultProxy::start(upstream).await.unwrap();
    let mut live = connect(&proxy).await;
    round_trip(&mut live, b"ping").await;

    proxy.set_mode(Mode::Reset);
    reset(&mut live).await;
    prompt("reset connection gone", proxy.wait_connection_count(0)).await;

    // The kernel completes the handshake, then the proxy resets the connection on accept.
    prompt("reset on accept", connect_and_reset(&proxy)).await;
    assert_eq!(proxy.accepted_count(), 2);

    proxy.set_mode(Mode::Pass);
    let mut healed = connect(&proxy).await;
    round_trip(&mut healed, b"pong").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn delay_adds_latency_each_way_and_keeps_order() {
    let (upstream, _seen) = echo_server().await;
    let proxy = FaultProxy::start(upstream).await.unwrap();
    let mut client = connect(&proxy).await;
    round_trip(&mut client, b"warm").await;

    let delay = Duration::from_millis(200);
    proxy.set_mode(Mode::Delay(delay));
    let start = Instant::now();
    round_trip(&mut client, b"slow").await;
    let took = start.elapsed();
    assert!(took >= 2 * delay, "round trip took {took:?}, expected at least {:?}", 2 * delay);

    // Several chunks in flight at once come back in order.
    let start = Instant::now();
    let mut expected = Vec::new();
    for i in 0..20u8 {
        let chunk = [i; 100];
        client.write_all(&chunk).await.unwrap();
        expected.extend_from_slice(&chunk);
    }
    let mut back = vec![0; expected.len()];
    prompt("delayed chunks", client.read_exact(&mut back)).await.unwrap();
    assert_eq!(back, expected);
    assert!(start.elapsed() >= 2 * delay);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn leaving_delay_releases_waiting_chunks_at_once() {
    let (upstream, mut seen) = echo_server().await;
    let proxy = FaultProxy::start(upstream).await.unwrap();
    let mut client = connect(&proxy).await;
    round_trip(&mut client, b"warm").await;
    server_connected(&mut seen).await;
    server_gets(&mut seen, b"warm").await;

    proxy.set_mode(Mode::Delay(Duration::from_secs(3600)));
    client.write_all(b"held").await.unwrap();
    silent(&mut client).await;
    assert!(seen.try_recv().is_err(), "a delayed chunk arrived early");

    proxy.set_mode(Mode::Pass);
    let mut back = [0; 4];
    prompt("released chunk", client.read_exact(&mut back)).await.unwrap();
    assert_eq!(&back, b"held");
    server_gets(&mut seen, b"held").await;
    round_trip(&mut client, b"still usable").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn one_way_to_upstream_delivers_requests_but_drops_replies() {
    let (upstream, mut seen) = echo_server().await;
    let proxy = FaultProxy::start(upstream).await.unwrap();
    let mut client = connect(&proxy).await;
    round_trip(&mut client, b"warm").await;
    server_connected(&mut seen).await;
    server_gets(&mut seen, b"warm").await;

    proxy.set_mode(Mode::OneWay(Direction::ToUpstream));
    client.write_all(b"request").await.unwrap();
    server_gets(&mut seen, b"request").await;
    silent(&mut client).await;

    // The reply direction was cut: forwarding it again resets the connection.
    proxy.set_mode(Mode::Pass);
    reset(&mut client).await;
    let mut fresh = connect(&proxy).await;
    round_trip(&mut fresh, b"fresh").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn one_way_to_client_drops_requests() {
    let (upstream, mut seen) = echo_server().await;
    let proxy = FaultProxy::start(upstream).await.unwrap();
    let mut client = connect(&proxy).await;
    round_trip(&mut client, b"warm").await;
    server_connected(&mut seen).await;
    server_gets(&mut seen, b"warm").await;

    proxy.set_mode(Mode::OneWay(Direction::ToClient));
    client.write_all(b"request").await.unwrap();
    silent(&mut client).await;
    assert!(seen.try_recv().is_err(), "the server received a dropped request");

    // Going on to a full partition keeps the connection open; healing then resets it.
    proxy.set_mode(Mode::Blackhole);
    silent(&mut client).await;
    proxy.set_mode(Mode::Pass);
    reset(&mut client).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn shutdown_closes_connections_and_listener() {
    let (upstream, _seen) = echo_server().await;
    let proxy = FaultProxy::start(upstream).await.unwrap();
    let addr = proxy.addr();
    let mut client = connect(&proxy).await;
    round_trip(&mut client, b"ping").await;

    prompt("shutdown", proxy.shutdown()).await;
    closed(&mut client).await;
    let refused = TcpStream::connect(addr).await.unwrap_err();
    assert_eq!(refused.kind(), ErrorKind::ConnectionRefused);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn drop_closes_connections_and_listener() {
    let (upstream, _seen) = echo_server().await;
    let proxy = FaultProxy::start(upstream).await.unwrap();
    let addr = proxy.addr();
    let mut client = connect(&proxy).await;
    round_trip(&mut client, b"ping").await;
    proxy.set_mode(Mode::Blackhole);

    drop(proxy);
    closed(&mut client).await;
    prompt("listener closed", async {
        loop {
            match TcpStream::connect(addr).await {
                Err(err) if err.kind() == ErrorKind::ConnectionRefused => break,
                // The aborted listener may not be gone yet: a connection that got into its
                // backlog is reset or closed at once.
                Err(err) => assert_eq!(err.kind(), ErrorKind::ConnectionReset, "{err}"),
                Ok(mut late) => closed(&mut late).await,
            }
        }
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn unreachable_upstream_resets_clients() {
    // A port that was free a moment ago: nothing listens there.
    let upstream = TcpListener::bind("127.0.0.1:0").await.unwrap().local_addr().unwrap();
    let proxy = FaultProxy::start(upstream).await.unwrap();
    prompt("reset for want of upstream", connect_and_reset(&proxy)).await;
}
