//! Keep-alives as messages on one gRPC `LeaseKeepAlive` stream per store, kept open.
//!
//! etcd renews a lease only through that stream. Its JSON gateway opens a new stream on the
//! member for every request, which costs the member as much as a transaction; a message on an
//! open stream costs it a fraction of that. The member answers a stream's messages one by one
//! in the order they came, so each answer goes to the oldest waiting keep-alive. A stream that
//! fails (a leader change closes it, a member goes away) fails every keep-alive waiting on it
//! and is opened again by the next one: a keep-alive changes nothing but the lease's expiry,
//! so its outcome being unknown only means the lease may live longer.

use std::collections::VecDeque;
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};
use std::time::Duration;

use bytes::{Bytes, BytesMut};
use http_body_util::BodyExt;
use hyper::body::{Frame, Incoming};
use hyper::client::conn::http2;
use hyper_util::rt::{TokioExecutor, TokioIo};
use tokio::net::TcpStream;
use tokio::sync::{mpsc, oneshot};

use crate::grpc;
use crate::tls::Tls;
use crate::wire::LeaseAnswer;

/// Why a stream ended.
#[derive(Debug, Clone)]
pub(crate) enum StreamError {
    /// The member refused the stream with a gRPC status.
    Refused { code: i32, message: String },
    /// The stream had ended before the keep-alives were sent: nothing was sent.
    NotSent,
    /// The stream broke after keep-alives were sent.
    Broken(String),
}

/// A `LeaseKeepAlive` stream to one member.
pub(crate) struct KeepAliveStream {
    /// The member's `host:port`.
    pub(crate) address: String,
    state: Mutex<State>,
}

struct State {
    /// Where messages go; `None` once the stream ended.
    outgoing: Option<mpsc::UnboundedSender<Bytes>>,
    /// The keep-alives sent and not yet answered, oldest first.
    waiting: VecDeque<(i64, oneshot::Sender<Result<LeaseAnswer, StreamError>>)>,
    /// Why the stream ended, once it did.
    ended: Option<StreamError>,
}

impl KeepAliveStream {
    /// Opens a stream to the member at `address`, over TLS with `tls` if given, authenticated
    /// with `token` if given; the error says why it could not be opened (nothing was sent).
    pub(crate) async fn open(
        address: &str,
        tls: Option<&Tls>,
        token: Option<&str>,
        connect_timeout: Duration,
    ) -> Result<Arc<KeepAliveStream>, String> {
        let unreachable = |why: String| format!("{address}: {why}");
        let connecting = async {
            let tcp =
                TcpStream::connect(address).await.map_err(|err| unreachable(err.to_string()))?;
            let _ = tcp.set_nodelay(true);
            let started = match tls {
                None => start(TokioIo::new(tcp)).await,
                Some(tls) => {
                    let stream = tls.handshake_h2(address, tcp).await.map_err(unreachable)?;
                    start(TokioIo::new(stream)).await
                }
            };
            started.map_err(|err| unreachable(err.to_string()))
        };
        let mut sender =
            tokio::time::timeout(connect_timeout, connecting).await.unwrap_or_else(|_| {
                Err(unreachable(format!("no connection within {connect_timeout:?}")))
            })?;
        let (outgoing, messages) = mpsc::unbounded_channel();
        let scheme = if tls.is_some() { "https" } else { "http" };
        let mut request =
            hyper::Request::post(format!("{scheme}://{address}{}", grpc::KEEP_ALIVE_PATH))
                .header(hyper::header::CONTENT_TYPE, "application/grpc")
                .header(hyper::header::TE, "trailers");
        if let Some(token) = token {
            request = request.header("token", token);
        }
        let request =
            request.body(Messages(messages)).map_err(|err| unreachable(err.to_string()))?;
        let stream = Arc::new(KeepAliveStream {
            address: address.to_string(),
            state: Mutex::new(State {
                outgoing: Some(outgoing),
                waiting: VecDeque::new(),
                ended: None,
            }),
        });
        let answers = sender.send_request(request);
        let reading = stream.clone();
        tokio::spawn(async move {
            let why = match answers.await {
                Ok(response) => reading.read(response).await,
                Err(err) => StreamError::Broken(err.to_string()),
            };
            drop(sender);
            reading.end(why);
        });
        Ok(stream)
    }

    fn state(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// Whether the stream ended.
    pub(crate) fn ended(&self) -> bool {
        self.state().outgoing.is_none()
    }

    /// Sends a keep-alive of each of `ids` and waits for their answers, in order, for at most
    /// `timeout`; `None` when the time ran out (the stream is then ended: a late answer could
    /// no longer be told from the next one's).
    pub(crate) async fn keep_alive(
        &self,
        ids: &[i64],
        timeout: Duration,
    ) -> Option<Result<Vec<LeaseAnswer>, StreamError>> {
        let mut answers = Vec::with_capacity(ids.len());
        {
            let mut state = self.state();
            let Some(outgoing) = state.outgoing.clone() else {
                return Some(Err(StreamError::NotSent));
            };
            for (sent, id) in ids.iter().enumerate() {
                let (answer, answered) = oneshot::channel();
                if outgoing.send(grpc::keep_alive_request(*id)).is_err() {
                    let why = match sent {
                        0 => StreamError::NotSent,
                        _ => StreamError::Broken("the stream closed".into()),
                    };
                    return Some(Err(why));
                }
                state.waiting.push_back((*id, answer));
                answers.push(answered);
            }
        }
        let collect = async {
            let mut kept = Vec::with_capacity(answers.len());
            for answered in answers {
                match answered.await {
                    Ok(Ok(answer)) => kept.push(answer),
                    Ok(Err(why)) => return Err(why),
                    Err(_) => return Err(StreamError::Broken("the stream closed".into())),
                }
            }
            Ok(kept)
        };
        match tokio::time::timeout(timeout, collect).await {
            Ok(kept) => Some(kept),
            Err(_) => {
                self.end(StreamError::Broken(format!("no answer within {timeout:?}")));
                None
            }
        }
    }

    /// Reads answers until the stream ends; answers why it ended.
    async fn read(&self, response: hyper::Response<Incoming>) -> StreamError {
        if let Some(refused) = status(response.headers()) {
            return refused;
        }
        if response.status() != hyper::StatusCode::OK {
            return StreamError::Broken(format!("HTTP {}", response.status()));
        }
        let mut body = response.into_body();
        let mut buffer = BytesMut::new();
        while let Some(frame) = body.frame().await {
            let frame = match frame {
                Ok(frame) => frame,
                Err(err) => return StreamError::Broken(err.to_string()),
            };
            if let Some(trailers) = frame.trailers_ref() {
                return status(trailers)
                    .unwrap_or_else(|| StreamError::Broken("the member ended the stream".into()));
            }
            if let Some(data) = frame.data_ref() {
                buffer.extend_from_slice(data);
            }
            loop {
                match grpc::next_answer(&mut buffer) {
                    Ok(Some(answer)) => {
                        if let Err(why) = self.answer(answer) {
                            return why;
                        }
                    }
                    Ok(None) => break,
                    Err(why) => return StreamError::Broken(why),
                }
            }
        }
        StreamError::Broken("the member ended the stream".into())
    }

    /// Hands `answer` to the oldest waiting keep-alive, which must be of the same etcd lease.
    fn answer(&self, answer: LeaseAnswer) -> Result<(), StreamError> {
        let Some((id, waiter)) = self.state().waiting.pop_front() else {
            return Err(StreamError::Broken(format!(
                "an answer for etcd lease {:x} nobody sent",
                answer.id
            )));
        };
        if id != answer.id {
            return Err(StreamError::Broken(format!(
                "an answer for etcd lease {:x} where {id:x} was next",
                answer.id
            )));
        }
        let _ = waiter.send(Ok(answer));
        Ok(())
    }

    /// Ends the stream: nothing more is sent, and every waiting keep-alive fails with `why`.
    fn end(&self, why: StreamError) {
        let waiting = {
            let mut state = self.state();
            state.outgoing = None;
            state.ended.get_or_insert(why.clone());
            std::mem::take(&mut state.waiting)
        };
        for (_, waiter) in waiting {
            let _ = waiter.send(Err(why.clone()));
        }
    }
}

/// Starts HTTP/2 on an open connection; the connection runs on its own task.
async fn start<T>(io: T) -> Result<http2::SendRequest<Messages>, hyper::Error>
where
    T: hyper::rt::Read + hyper::rt::Write + Unpin + Send + 'static,
{
    let (sender, connection) = http2::handshake(TokioExecutor::new(), io).await?;
    tokio::spawn(async move {
        if let Err(err) = connection.await {
            tracing::debug!(%err, "an etcd keep-alive connection closed");
        }
    });
    Ok(sender)
}

/// The gRPC status in `headers` (or trailers), if it is not OK.
fn status(headers: &hyper::HeaderMap) -> Option<StreamError> {
    let code: i32 = headers.get("grpc-status")?.to_str().ok()?.parse().ok()?;
    if code == 0 {
        return None;
    }
    let message = headers
        .get("grpc-message")
        .and_then(|message| message.to_str().ok())
        .and_then(baton_core::url::percent_decode)
        .unwrap_or_default();
    Some(StreamError::Refused { code, message })
}

/// The request body: the keep-alive messages, as they are sent.
struct Messages(mpsc::UnboundedReceiver<Bytes>);

impl hyper::body::Body for Messages {
    type Data = Bytes;
    type Error = std::convert::Infallible;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, Self::Error>>> {
        self.0.poll_recv(cx).map(|message| message.map(|bytes| Ok(Frame::data(bytes))))
    }
}
