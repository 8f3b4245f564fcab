//! Serving HTTP/1.1 on a listening socket, plain or over TLS as each client opens, until told to
//! stop. Stopping closes the port and drops every open connection, watches included, as a
//! server going away would.

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

use super::app::App;
use super::runtime::ServerThread;
use super::tls::opens_tls;

/// How long to wait before accepting again after `accept` failed.
const ACCEPT_BACKOFF: Duration = Duration::from_millis(100);

/// A listener being served.
pub(super) struct Serving {
    stop: oneshot::Sender<()>,
    stopped: std::sync::mpsc::Receiver<()>,
}

impl Serving {
    /// Serves `app` on `listener`, on `runtime`, in plain HTTP or over TLS with `tls`, as each
    /// client opens.
    pub(super) fn start(
        runtime: &ServerThread,
        listener: TcpListener,
        app: Arc<App>,
        tls: TlsAcceptor,
    ) -> Serving {
        let (stop, stopping) = oneshot::channel();
        let (stopped_sender, stopped) = std::sync::mpsc::channel();
        runtime.spawn(async move {
            accept(listener, app, tls, stopping).await;
            let _ = stopped_sender.send(());
        });
        Serving { stop, stopped }
    }

    /// Stops serving and waits until the port is closed and every connection dropped.
    pub(super) fn stop(self) {
        let _ = self.stop.send(());
        let _ = self.stopped.recv();
    }
}

/// Accepts connections until `stopping` fires (or its sender is dropped), then closes the
/// listener and drops the connections.
async fn accept(
    listener: TcpListener,
    app: Arc<App>,
    tls: TlsAcceptor,
    mut stopping: oneshot::Receiver<()>,
) {
    let mut connections = JoinSet::new();
    loop {
        tokio::select! {
            _ = &mut stopping => break,
            accepted = listener.accept() => match accepted {
                Ok((stream, _)) => {
                    connections.spawn(serve_connection(stream, app.clone(), tls.clone()));
                }
                Err(err) => {
                    // Such as out of file descriptors: back off rather than spin.
                    tracing::warn!(%err, "the emulated kube-apiserver cannot accept");
                    tokio::time::sleep(ACCEPT_BACKOFF).await;
                }
            },
            Some(_) = connections.join_next(), if !connections.is_empty() => {}
        }
    }
    drop(listener);
    connections.shutdown().await;
}

async fn serve_connection(stream: TcpStream, app: Arc<App>, tls: TlsAcceptor) {
    let _ = stream.set_nodelay(true);
    match opens_tls(&stream).await {
        Ok(true) => match tls.accept(stream).await {
            Ok(stream) => serve_http(stream, app).await,
            Err(err) => {
                tracing::debug!(%err, "a TLS handshake with the emulated kube-apiserver failed")
            }
        },
        Ok(false) => serve_http(stream, app).await,
        Err(err) => tracing::debug!(%err, "a connection to the emulated kube-apiserver failed"),
    }
}

/// Serves HTTP/1.1 on one connection, plain or TLS.
async fn serve_http<S>(stream: S, app: Arc<App>)
where
    S: AsyncRead + AsyncWrite + Unpin + Send + 'static,
{
    let service = service_fn(move |request: hyper::Request<Incoming>| {
        let app = app.clone();
        async move { app.answer(request).await }
    });
    if let Err(err) = http1::Builder::new().serve_connection(TokioIo::new(stream), service).await {
        tracing::debug!(%err, "a connection to the emulated kube-apiserver ended");
    }
}
