//! "Executions became due" wake-ups through `LISTEN`/`NOTIFY` on [`DUE_CHANNEL`].

use async_trait::async_trait;
use baton_core::job::DueChanges;
use baton_core::{Error, ErrorKind, Result};
use sqlx::postgres::{PgConnectOptions, PgListener};

use crate::DUE_CHANNEL;
use crate::changes::listen;
use crate::error::query_error;

/// Opens a dedicated connection listening on [`DUE_CHANNEL`].
pub(crate) async fn subscribe(options: &PgConnectOptions) -> Result<Box<dyn DueChanges>> {
    let listener = listen(options, DUE_CHANNEL, "subscribing to due executions").await?;
    Ok(Box::new(DueFeed { listener, broken: false }))
}

/// One listening connection; a wake-up is any notification on the channel, whatever its
/// payload, since a worker answers it by claiming.
struct DueFeed {
    listener: PgListener,
    broken: bool,
}

fn broken_feed() -> Error {
    Error::new(
        ErrorKind::Unavailable,
        "the due-execution feed lost its PostgreSQL connection: subscribe again",
    )
}

#[async_trait]
impl DueChanges for DueFeed {
    async fn next(&mut self) -> Result<()> {
        if self.broken {
            return Err(broken_feed());
        }
        match self.listener.try_recv().await {
            Ok(Some(_notification)) => Ok(()),
            Ok(None) => {
                self.broken = true;
                Err(broken_feed())
            }
            Err(err) => {
                self.broken = true;
                Err(query_error("waiting for due executions", err))
            }
        }
    }
}
