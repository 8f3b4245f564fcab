//! Release notifications through `LISTEN`/`NOTIFY`, and the listening connection other feeds
//! share.

use async_trait::async_trait;
use baton_core::{Error, ErrorKind, LeaseChanges, LeaseName, Result};
use sqlx::postgres::{PgConnectOptions, PgListener, PgPoolOptions};

use crate::RELEASE_CHANNEL;
use crate::backend::CONNECT_TIMEOUT;
use crate::error::query_error;

/// Opens a dedicated connection listening on [`RELEASE_CHANNEL`].
pub(crate) async fn subscribe(options: &PgConnectOptions) -> Result<Box<dyn LeaseChanges>> {
    let listener = listen(options, RELEASE_CHANNEL, "subscribing to lease releases").await?;
    Ok(Box::new(Subscription { listener, broken: false }))
}

/// Opens a dedicated connection listening on `channel`; `action` names the subscription in
/// errors.
pub(crate) async fn listen(
    options: &PgConnectOptions,
    channel: &str,
    action: &str,
) -> Result<PgListener> {
    // A pool of one, used only to hold the listener's connection; it never reconnects on its
    // own, because notifications sent while disconnected would be lost without a trace.
    let pool = PgPoolOptions::new()
        .max_connections(1)
        .max_lifetime(None)
        .idle_timeout(None)
        .acquire_timeout(CONNECT_TIMEOUT)
        .connect_lazy_with(options.clone());
    let mut listener =
        PgListener::connect_with(&pool).await.map_err(|err| query_error(action, err))?;
    listener.ignore_pool_close_event(true);
    listener.eager_reconnect(false);
    listener.listen(channel).await.map_err(|err| query_error(action, err))?;
    Ok(listener)
}

struct Subscription {
    listener: PgListener,
    broken: bool,
}

fn broken_feed() -> Error {
    Error::new(
        ErrorKind::Unavailable,
        "the lease release feed lost its PostgreSQL connection: subscribe again",
    )
}

#[async_trait]
impl LeaseChanges for Subscription {
    async fn next(&mut self) -> Result<LeaseName> {
        loop {
            if self.broken {
                return Err(broken_feed());
            }
            match self.listener.try_recv().await {
                Ok(Some(notification)) => match LeaseName::new(notification.payload()) {
                    Ok(name) => return Ok(name),
                    Err(_) => tracing::debug!(
                        payload = notification.payload(),
                        "ignoring a notification that names no lease"
                    ),
                },
                Ok(None) => {
                    self.broken = true;
                    return Err(broken_feed());
                }
                Err(err) => {
                    self.broken = true;
                    return Err(query_error("waiting for lease releases", err));
                }
            }
        }
    }
}
