//! A store's own replicated deployment, for [`Fault::MemberFailure`](super::Fault::MemberFailure):
//! three etcd members, a three-member ZooKeeper ensemble, or a Redis master with a replica
//! and three sentinels, all throwaway on loopback, whose leader can be killed.

use std::time::{Duration, Instant};

use crate::servers::{EtcdCluster, SentinelConfig, SentinelTopology, ZookeeperEnsemble};

use super::Store;

/// A replicated deployment of a store.
pub enum Members {
    /// Three etcd members electing a leader by Raft.
    Etcd(EtcdCluster),
    /// Three ZooKeeper servers electing a leader by Zab.
    Zookeeper(ZookeeperEnsemble),
    /// A Redis master, its replica, and three sentinels that promote the replica when the
    /// master dies (replication is asynchronous).
    Redis(Box<SentinelTopology>),
}

impl Members {
    /// Starts the replicated deployment of `store` and waits until it serves; `None` for a
    /// store the tests run as a single server or process only. Blocks its thread meanwhile.
    pub fn start(store: Store) -> Option<Members> {
        tokio::task::block_in_place(|| match store {
            Store::Etcd => Some(Members::Etcd(EtcdCluster::start())),
            Store::Zookeeper => Some(Members::Zookeeper(ZookeeperEnsemble::start())),
            Store::Redis => {
                let topology = SentinelTopology::start(SentinelConfig::default());
                Some(Members::Redis(Box::new(topology)))
            }
            _ => None,
        })
    }

    /// The URL naming every member (for Redis, every sentinel).
    pub fn url(&self) -> String {
        match self {
            Members::Etcd(cluster) => cluster.url(),
            Members::Zookeeper(ensemble) => ensemble.url(),
            Members::Redis(topology) => topology.url(),
        }
    }

    /// Kills the member that leads (`kill -9`) and waits until the others serve under a new
    /// leader; answers how long that took. Blocks its thread, as a server's own failover does
    /// not wait for the caller.
    pub fn kill_leader(&self) -> Duration {
        crate::history::nemesis("kill -9", "the store's leader member");
        tokio::task::block_in_place(|| match self {
            Members::Etcd(cluster) => {
                let leader = cluster.leader();
                let killed = Instant::now();
                leader.process().kill();
                cluster.leader();
                killed.elapsed()
            }
            Members::Zookeeper(ensemble) => {
                let leader = ensemble.leader().expect("the ensemble has a leader");
                let killed = Instant::now();
                ensemble.members[leader].process().kill();
                ensemble.wait_for_leader(&[leader]);
                killed.elapsed()
            }
            Members::Redis(topology) => {
                let killed = Instant::now();
                topology.initial_master().process().kill();
                topology.wait_for_master(topology.initial_replica().port());
                killed.elapsed()
            }
        })
    }
}
