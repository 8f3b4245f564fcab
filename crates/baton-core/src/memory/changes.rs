//! Release notifications between tasks of one process.

use std::collections::VecDeque;
use std::sync::{Arc, Mutex, Weak};

use async_trait::async_trait;
use event_listener::Event;

use crate::error::Result;
use crate::lease::{LeaseChanges, LeaseName};

#[derive(Default)]
struct Inbox {
    queue: Mutex<VecDeque<LeaseName>>,
    arrived: Event,
}

/// Fans released lease names out to every live subscriber.
#[derive(Default)]
pub(super) struct Broadcaster {
    inboxes: Mutex<Vec<Weak<Inbox>>>,
}

impl Broadcaster {
    pub(super) fn subscribe(&self) -> Box<dyn LeaseChanges> {
        let inbox = Arc::new(Inbox::default());
        let mut inboxes = self.inboxes.lock().unwrap_or_else(|e| e.into_inner());
        inboxes.retain(|weak| weak.strong_count() > 0);
        inboxes.push(Arc::downgrade(&inbox));
        Box::new(Subscription { inbox })
    }

    pub(super) fn publish(&self, name: &LeaseName) {
        let inboxes = self.inboxes.lock().unwrap_or_else(|e| e.into_inner());
        for inbox in inboxes.iter().filter_map(Weak::upgrade) {
            inbox.queue.lock().unwrap_or_else(|e| e.into_inner()).push_back(name.clone());
            inbox.arrived.notify(usize::MAX);
        }
    }
}

struct Subscription {
    inbox: Arc<Inbox>,
}

#[async_trait]
impl LeaseChanges for Subscription {
    async fn next(&mut self) -> Result<LeaseName> {
        loop {
            let listener = self.inbox.arrived.listen();
            if let Some(name) =
                self.inbox.queue.lock().unwrap_or_else(|e| e.into_inner()).pop_front()
            {
                return Ok(name);
            }
            listener.await;
        }
    }
}
