//! Serving HTTP/1.1 on a listening socket, plain or (given an acceptor) over TLS as each client
//! opens, until told to stop. Stopping closes the port and drops every open connection, blocking
//! queries and watches included, as a server going away would.

use std::net::{Ipv4Addr, SocketAddr};
use std::sync::Arc;
use std::time::Duration;

use hyper::body::Incoming;
use hyper::server::conn::http1;
use hyper::service::service_fn;
use hyper_util::rt::TokioIo;
use tokio::io::{AsyncRead, AsyncWrite};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::oneshot;
use tokio::task::JoinSet;
use tokio_rustls::TlsAcceptor;

use super::Handler;
use super::runtime::ServerThread;

/// How long to wait before accepting again after `accept` failed.
const ACCEPT_BACKOFF: Duration = Duration::from_millis(100);

/// The first byte of a TLS connection: a handshake record.
const HANDSHAKE_RECORD: u8 = 0x16;

/// A listener on `port` on loopback (0 for a free one), made on the server's runtime.
pub(crate) fn bind(runtime: &ServerThread, port: u16) -> TcpListener {
    let address = SocketAddr::from((Ipv4Addr::LOCALHOST, port));
    runtime
        .run(async move { TcpListener::bind(address).await })
        .unwrap_or_else(|err| panic!("cannot listen on {address}: {err}"))
}

/// A listener being served.
pub(crate) struct Serving {
    stop: oneshot::Sender<()>,
    stopped: std::sync::mpsc::Receiver<()>,
}

impl Serving {
    /// Serves `handler` on `listener`, on `runtime`: in plain HTTP, or over TLS with `tls` for
    /// the clients that open with a TLS handshake.
    pub(crate) fn start<H: Handler>(
        runtime: &ServerThread,
        listener: TcpListener,
        handler: Arc<H>,
        tls: Option<TlsAcceptor>,
    ) -> Serving {
        let (stop, stopping) = oneshot::channel();
        let (stopped_sender, stopped) = std::sync::mpsc::channel();
        runtime.spawn(async move {
            accept(listener, handler, tls, stopping).await;
            let _ = stopped_sender.send(());
        });
        Serving { stop, stopped }
    }

    /// Stops serving and waits until the port is closed and every connection dropped.
    pub(crate) fn stop(self) {
        let _ = self.stop.send(());
        let _ = self.stopped.recv();
    }
}

/// Accepts connections until `stopping` fires (or its sender is dropped), then closes the
/// listener and drops the connections.
async fn accept<H: Handler>(
    listener: TcpListener,
    handler: Arc<H>,
    tls: Option<TlsAcceptor>,
    mut stopping: oneshot::Receiver<()>,
) {
    let mut connections = JoinSet::new();
    loop {
        tokio::select! {
            _ = &mut stopping => break,
            accepted = listener.accept() => match accepted {
                Ok((stream, _)) => {
                    connections.spawn(serve_connection(stream, handler.clone(), tls.clone()));
                }
                Err(err) => {
                    // Such as out of file descriptors: back off rather than spin.
                    tracing::warn!(%err, "an emulated server cannot accept");
                    tokio::time::sleep(ACCEPT_BACKOFF).await;
                }
            },
            Some(_) = connections.join_next(), if !connections.is_empty() => {}
        }
    }
    drop(listener);
    connections.shutdown().await;
}

async fn serve_connection<H: Handler>(
    stream: TcpStream,
    handler: Arc<H>,
    tls: Option<TlsAcceptor>,
) {
    let _ = stream.set_nodelay(true);
    let Some(tls) = tls else { return serve_http(stream, handler).await };
    match opens_tls(&stream).await {
        Ok(true) => match tls.accept(stream).await {
            Ok(stream) => serve_http(stream, handler).await,
            Err(err) => tracing::debug!(%err, "a TLS handshake with an emulated server failed"),
        },
        Ok(false) => serve_http(stream, handler).await,
        Err(err) => tracing::debug!(%err, "a connection to an emulated server failed"),
    }
}

/// Whether the client on `stream` opens with a TLS handshake (waits for its first byte).
async fn opens_tls(stream: &TcpStream) -> std::io::Result<bool> {
    let mut first = [0u8; 1];
    let read = stream.peek(&mut first).await?;
    Ok(read == 1 && first[0] == HANDSHAKE_RECORD)
}

/// Serves HTTP/1.1 on one connection, plain or TLS.
async fn serve_http<S, H>(stream: S, handler: Arc<H>)
where
    S: AsyncRead + AsyncWrite + Unpin + Send + 'static,
    H: Handler,
{
    let service = service_fn(move |request: hyper::Request<Incoming>| {
        let handler = handler.clone();
        handler.answer(request)
    });
    if let Err(err) = http1::Builder::new().serve_connection(TokioIo::new(stream), service).await {
        tracing::debug!(%err, "a connection to an emulated server ended");
    }
}
