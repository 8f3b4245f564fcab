//! What every scenario does first: open the store, bring its schema up to date, find out what
//! kind of store it is, and name the run.

use baton::Backend;

use crate::target::Target;

/// A scenario's store and run.
pub(crate) struct Scenario {
    /// The store, migrated.
    pub(crate) backend: Backend,
    /// What kind of store it is, for the floor and the server's statistics.
    pub(crate) target: Target,
    /// This run's id, a prefix of every name the run creates.
    pub(crate) run: String,
}

impl Scenario {
    /// Opens and migrates the store at `url` and names a new run.
    pub(crate) async fn open(url: &str) -> anyhow::Result<Scenario> {
        let backend = baton::connect(url).await?;
        backend.migrate().await?;
        let target = Target::from_url(url).await?;
        Ok(Scenario { backend, target, run: format!("{:08x}", fastrand::u32(..)) })
    }
}
