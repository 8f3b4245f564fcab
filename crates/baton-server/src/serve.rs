//! Serving the router over HTTP/1.1, with the peer's address for the admin log and a head
//! buffer large enough that the request limits answer in JSON (see [`crate::limits`]).

use std::future::Future;
use std::time::Duration;

use axum::Router;
use axum::extract::ConnectInfo;
use hyper::body::Incoming;
use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::server::graceful::GracefulShutdown;
use tokio::net::TcpListener;
use tower::ServiceExt;

use crate::limits::{HEAD_BUFFER_BYTES, HEAD_FIELDS_PARSED};

/// How long a client may take to send a request head.
const HEAD_READ_TIMEOUT: Duration = Duration::from_secs(30);

/// How long to wait before accepting again after `accept` failed (out of file descriptors,
/// say), so that a persistent failure does not spin.
const ACCEPT_BACKOFF: Duration = Duration::from_millis(100);

/// Serves `router` on `listener` until `shutdown` completes, then stops accepting and waits
/// for the requests in flight to finish.
pub async fn serve(
    listener: TcpListener,
    router: Router,
    shutdown: impl Future<Output = ()> + Send,
) -> std::io::Result<()> {
    let mut http = hyper::server::conn::http1::Builder::new();
    http.max_buf_size(HEAD_BUFFER_BYTES)
        .max_headers(HEAD_FIELDS_PARSED)
        .timer(TokioTimer::new())
        .header_read_timeout(HEAD_READ_TIMEOUT);
    let connections = GracefulShutdown::new();
    tokio::pin!(shutdown);
    loop {
        let (stream, peer) = tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok(accepted) => accepted,
                Err(err) => {
                    tracing::warn!(%err, "cannot accept an HTTP connection");
                    tokio::time::sleep(ACCEPT_BACKOFF).await;
                    continue;
                }
            },
            () = &mut shutdown => break,
        };
        if let Err(err) = stream.set_nodelay(true) {
            tracing::debug!(%err, %peer, "cannot set TCP_NODELAY");
        }
        let router = router.clone();
        let answer = hyper::service::service_fn(move |mut request: hyper::Request<Incoming>| {
            request.extensions_mut().insert(ConnectInfo(peer));
            router.clone().oneshot(request.map(axum::body::Body::new))
        });
        let connection = http.serve_connection(TokioIo::new(stream), answer);
        let connection = connections.watch(connection);
        tokio::spawn(async move {
            if let Err(err) = connection.await {
                tracing::debug!(%err, %peer, "HTTP connection ended with an error");
            }
        });
    }
    drop(listener);
    connections.shutdown().await;
    Ok(())
}
