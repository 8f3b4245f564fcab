//! One open HTTP/1.1 connection: the handle that sends on it, and the task that runs it.

use bytes::Bytes;
use http_body_util::Full;
use hyper::body::Incoming;
use hyper::client::conn::http1::{self, SendRequest};
use hyper::rt::{Read, Write};
use hyper::{Request, Response};
use tokio::task::JoinHandle;

/// An open connection; its task's error says why a request was only told it was canceled.
pub(crate) struct Connection {
    sender: SendRequest<Full<Bytes>>,
    task: JoinHandle<Result<(), hyper::Error>>,
}

impl Connection {
    /// Starts HTTP/1.1 on an open connection to `address`; the connection runs on its own task.
    pub(crate) async fn start<T>(io: T, address: &str) -> Result<Connection, hyper::Error>
    where
        T: Read + Write + Unpin + Send + 'static,
    {
        let (sender, connection) = http1::handshake(io).await?;
        let address = address.to_string();
        let task = tokio::spawn(async move {
            let ended = connection.await;
            if let Err(err) = &ended {
                tracing::debug!(%err, %address, "an HTTP connection closed");
            }
            ended
        });
        Ok(Connection { sender, task })
    }

    /// Whether the connection can take a request now.
    pub(crate) fn is_ready(&self) -> bool {
        self.sender.is_ready()
    }

    /// Sends `request`; when the connection failed before taking it, the error is the
    /// connection's (such as the endpoint refusing the TLS handshake).
    pub(crate) async fn send(
        &mut self,
        request: Request<Full<Bytes>>,
    ) -> Result<Response<Incoming>, hyper::Error> {
        match self.sender.send_request(request).await {
            // A canceled request means the connection ended: its task is finishing.
            Err(err) if err.is_canceled() => match (&mut self.task).await {
                Ok(Err(cause)) => Err(cause),
                _ => Err(err),
            },
            other => other,
        }
    }
}
