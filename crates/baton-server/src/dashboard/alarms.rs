//! What the overview raises as an alarm: a lease that nobody holds, a node that stopped
//! answering.

use baton::core::cluster::{Node, NodeState};
use baton::{Lease, StoreTime};

use super::format::relative;

/// One alarm: what is wrong, and the lease it is about, whose page shows more.
pub(crate) struct Alarm {
    pub text: String,
    pub lease: Option<String>,
}

/// The alarms at `now`: each lease without a holder, then each unreachable node.
pub(crate) fn alarms(leases: &[Lease], nodes: &[Node], now: StoreTime) -> Vec<Alarm> {
    let vacant = leases.iter().filter(|lease| lease.holder_at(now).is_none()).map(|lease| {
        let how = match lease.released {
            Some(kind) => format!("released ({})", kind.as_str()),
            None => "expired".to_string(),
        };
        Alarm {
            text: format!(
                "Lease {} has no holder: {how} {}.",
                lease.name,
                relative(lease.expires_at, now)
            ),
            lease: Some(lease.name.to_string()),
        }
    });
    let unreachable =
        nodes.iter().filter(|node| node.state == NodeState::Unreachable).map(|node| Alarm {
            text: format!(
                "Node {} is unreachable: its last heartbeat was {}.",
                node.id,
                relative(node.heartbeat_at, now)
            ),
            lease: None,
        });
    vacant.chain(unreachable).collect()
}
