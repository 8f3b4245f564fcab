//! The leader-election scenario: each node campaigns for one lease, and its leader writes to
//! the lease's fenced resource every few tens of milliseconds for as long as its term is valid.

use std::sync::Arc;
use std::time::Duration;

use baton_core::layer::Layered;
use baton_core::{HolderId, LeaseName, LeaseStore};
use tokio::sync::watch;
use tokio::task::JoinHandle;

use super::net::Link;
use super::world::{Incarnation, NodeRef, World};
use crate::elector::{Campaign, Elector, ElectorConfig, Leadership};

/// The lease's TTL; the elector's timing is scaled from it.
const TTL: Duration = Duration::from_secs(3);
/// The lease every node campaigns for.
pub(super) const LEASE: &str = "leader";

/// A node's elector, its campaign and its leader's work.
pub(super) struct Leader {
    elector: Elector,
    campaign: Campaign,
    work: JoinHandle<()>,
}

impl Incarnation for Leader {
    async fn start(world: &Arc<World>, node: NodeRef, link: &Link) -> Self {
        let inner: Arc<dyn LeaseStore> = world.leases.clone();
        let store: Arc<dyn LeaseStore> = Arc::new(Layered::new(inner, link.clone()));
        let holder = HolderId::new(node.name.clone()).expect("a holder id");
        let config = ElectorConfig::new(holder).with_ttl(TTL);
        let elector = Elector::new(store, config).expect("valid timing");
        let campaign = elector.campaign(LEASE.parse::<LeaseName>().expect("a lease name"));
        let work = tokio::spawn(lead(world.clone(), node, campaign.watch()));
        Leader { elector, campaign, work }
    }

    fn step_down(&self) {
        let step_downs = self.campaign.step_downs();
        tokio::spawn(async move { step_downs.request().await });
    }

    fn crash(self) {
        self.work.abort();
    }

    async fn stop(self) {
        self.work.abort();
        drop(self.campaign);
        self.elector.shutdown().await;
    }
}

/// While this node leads: check the term, act and write under its token, every few tens of
/// milliseconds.
async fn lead(world: Arc<World>, node: NodeRef, mut leadership: watch::Receiver<Leadership>) {
    loop {
        let handle = loop {
            if let Leadership::Leader(handle) = &*leadership.borrow_and_update()
                && !handle.is_cancelled()
            {
                break handle.clone();
            }
            if leadership.changed().await.is_err() {
                return;
            }
        };
        loop {
            tokio::time::sleep(world.dice.millis(10..60)).await;
            if handle.ensure_valid().is_err() {
                break;
            }
            world.act(&node, LEASE, handle.token().get()).await;
        }
    }
}
