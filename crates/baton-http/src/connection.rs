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

    /// Sends `request`. When the connection fails before writing any of it, the request comes
    /// back with the error, to be sent on another connection. A canceled request's error is the
    /// connection task's (such as the endpoint refusing the TLS handshake).
    pub(crate) async fn send(
        &mut self,
        request: Request<Full<Bytes>>,
    ) -> Result<Response<Incoming>, Unanswered> {
        let mut failed = match self.sender.try_send_request(request).await {
            Ok(response) => return Ok(response),
            Err(failed) => failed,
        };
        let unsent = failed.take_message();
        let mut error = failed.into_error();
        // A canceled request means the connection ended: its task is finishing.
        if error.is_canceled()
            && let Ok(Err(cause)) = (&mut self.task).await
        {
            error = cause;
        }
        Err(Unanswered { unsent, error })
    }
}

/// A request a connection did not answer.
pub(crate) struct Unanswered {
    /// The request, when the connection ended before writing any of it.
    pub(crate) unsent: Option<Request<Full<Bytes>>>,
    /// Why it got no answer.
    pub(crate) error: hyper::Error,
}

#[cfg(test)]
mod tests {
    use super::*;
    use hyper_util::rt::TokioIo;
    use tokio::io::{AsyncReadExt, AsyncWriteExt, DuplexStream};

    fn request() -> Request<Full<Bytes>> {
        Request::get("/").header("host", "memory").body(Full::default()).unwrap()
    }

    /// Reads one request and answers it, keeping the connection open.
    async fn answer_one(server: &mut DuplexStream) {
        let mut read = vec![0u8; 1024];
        let _ = server.read(&mut read).await.unwrap();
        server.write_all(b"HTTP/1.1 204 No Content\r\n\r\n").await.unwrap();
    }

    #[tokio::test(flavor = "current_thread")]
    async fn a_request_a_closed_idle_connection_did_not_write_comes_back() {
        let (client, mut server) = tokio::io::duplex(4096);
        let mut connection = Connection::start(TokioIo::new(client), "memory").await.unwrap();
        let (answered, ()) = tokio::join!(connection.send(request()), answer_one(&mut server));
        assert_eq!(answered.ok().map(|response| response.status().as_u16()), Some(204));
        // The endpoint closes the idle connection; the connection's task has not seen it yet.
        drop(server);
        assert!(connection.is_ready());
        let Err(failed) = connection.send(request()).await else {
            panic!("a closed connection answered");
        };
        assert!(failed.unsent.is_some(), "the request was not handed back: {}", failed.error);
    }
}
