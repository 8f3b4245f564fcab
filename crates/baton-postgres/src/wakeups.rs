//! Plain wake-ups through `LISTEN`/`NOTIFY`: executions became due ([`DUE_CHANNEL`]),
//! partitions became pending ([`PENDING_CHANNEL`]).

use async_trait::async_trait;
use baton_core::cluster::PendingChanges;
use baton_core::job::DueChanges;
use baton_core::{Error, ErrorKind, Result};
use sqlx::postgres::{PgConnectOptions, PgListener};

use crate::changes::listen;
use crate::error::query_error;
use crate::{DUE_CHANNEL, PENDING_CHANNEL};

/// Opens a dedicated connection listening on [`DUE_CHANNEL`].
pub(crate) async fn subscribe_due(options: &PgConnectOptions) -> Result<Box<dyn DueChanges>> {
    let feed = "due-execution";
    let listener = listen(options, DUE_CHANNEL, "subscribing to due executions").await?;
    Ok(Box::new(WakeupFeed { listener, feed, broken: false }))
}

/// Opens a dedicated connection listening on [`PENDING_CHANNEL`].
pub(crate) async fn subscribe_pending(
    options: &PgConnectOptions,
) -> Result<Box<dyn PendingChanges>> {
    let feed = "pending-partition";
    let listener = listen(options, PENDING_CHANNEL, "subscribing to pending partitions").await?;
    Ok(Box::new(WakeupFeed { listener, feed, broken: false }))
}

/// One listening connection; a wake-up is any notification on the channel, whatever its
/// payload, since the subscriber answers it by claiming.
struct WakeupFeed {
    listener: PgListener,
    /// The feed's name, for messages: "due-execution".
    feed: &'static str,
    broken: bool,
}

impl WakeupFeed {
    async fn wait(&mut self) -> Result<()> {
        if self.broken {
            return Err(self.broken_feed());
        }
        match self.listener.try_recv().await {
            Ok(Some(_notification)) => Ok(()),
            Ok(None) => {
                self.broken = true;
                Err(self.broken_feed())
            }
            Err(err) => {
                self.broken = true;
                Err(query_error(format!("waiting on the {} feed", self.feed), err))
            }
        }
    }

    fn broken_feed(&self) -> Error {
        Error::new(
            ErrorKind::Unavailable,
            format!("the {} feed lost its PostgreSQL connection: subscribe again", self.feed),
        )
    }
}

#[async_trait]
impl DueChanges for WakeupFeed {
    async fn next(&mut self) -> Result<()> {
        self.wait().await
    }
}

#[async_trait]
impl PendingChanges for WakeupFeed {
    async fn next(&mut self) -> Result<()> {
        self.wait().await
    }
}
