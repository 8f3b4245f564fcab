//! Following a batch until it is final: progress every few seconds, the partitions that
//! resume after a node was lost, and the kill of one node process once a third of the lines
//! are checkpointed, if asked.

use std::collections::HashMap;
use std::time::{Duration, Instant};

use baton::cluster::{BatchJob, BatchState, ClusterStore, Partition, PartitionState};
use partitioned_etl::{Slice, partitions};

use crate::fleet::Fleet;
use crate::node::node_id;

/// How often the batch is read.
const POLL: Duration = Duration::from_millis(250);
/// How often progress is printed.
const SHOW_EVERY: Duration = Duration::from_secs(3);

/// Follows batch `batch` until it is final; kills one node of `kill` on the way.
pub(crate) async fn watch(
    store: &dyn ClusterStore,
    batch: i64,
    mut kill: Option<&mut Fleet>,
) -> anyhow::Result<BatchJob> {
    let began = Instant::now();
    let mut shown = began;
    let mut killed: Option<(String, Instant)> = None;
    let mut attempts: HashMap<i64, u32> = HashMap::new();
    loop {
        let parts = partitions(store, batch).await?;
        let (done, total) = lines(&parts)?;
        if done * 3 >= total
            && let Some(fleet) = kill.as_deref_mut()
            && let Some(id) = kill_busiest(fleet, &parts)?
        {
            (killed, kill) = (Some((id, Instant::now())), None);
        }
        for part in &parts {
            let before = attempts.insert(part.id, part.attempts).unwrap_or(part.attempts);
            if part.attempts > before && part.attempts > 1 {
                resumed(part, killed.as_ref());
            }
        }
        if let Some(found) = store.batch_get(batch).await?
            && found.state != BatchState::Running
        {
            if kill.is_some() {
                println!("no node process was running a partition to kill: try more --rows");
            }
            return Ok(found);
        }
        if shown.elapsed() >= SHOW_EVERY {
            let completed = parts.iter().filter(|p| p.state == PartitionState::Completed).count();
            println!(
                "  {:>5.1} s  {:>3}% of the lines checkpointed, {completed} of {} partitions completed",
                began.elapsed().as_secs_f64(),
                done * 100 / total.max(1),
                parts.len()
            );
            shown = Instant::now();
        }
        tokio::time::sleep(POLL).await;
    }
}

/// Lines checkpointed (all of a completed partition's) and lines in all.
fn lines(parts: &[Partition]) -> anyhow::Result<(u64, u64)> {
    let (mut done, mut total) = (0, 0);
    for part in parts {
        let slice = Slice::of(part)?;
        total += slice.lines;
        done += if part.state == PartitionState::Completed { slice.lines } else { part.progress };
    }
    Ok((done, total))
}

/// Kills the node process running the most partitions, if one runs any; answers its id.
fn kill_busiest(fleet: &mut Fleet, parts: &[Partition]) -> anyhow::Result<Option<String>> {
    let running = |index: u32| {
        let id = node_id(index);
        let mine = |p: &&Partition| {
            p.state == PartitionState::Claimed && p.node.as_ref().is_some_and(|n| n.as_str() == id)
        };
        parts.iter().filter(mine).count()
    };
    let busiest = fleet.running().max_by_key(|index| running(*index));
    let Some(victim) = busiest.filter(|index| running(*index) > 0) else { return Ok(None) };
    fleet.kill(victim)?;
    let id = node_id(victim);
    println!(
        "killed {id} (SIGKILL) with {} partitions running; they resume elsewhere once the leader \
         finds it unreachable",
        running(victim)
    );
    Ok(Some(id))
}

/// Reports a partition claimed again.
fn resumed(part: &Partition, killed: Option<&(String, Instant)>) {
    let node = part.node.as_ref().map_or("a node", |node| node.as_str());
    let from =
        part.checkpoint.as_ref().map_or("its start".to_string(), |c| format!("checkpoint {c}"));
    let after = killed.map_or(String::new(), |(id, at)| {
        format!(", {:.1} s after {id} was killed", at.elapsed().as_secs_f64())
    });
    println!("{} resumed on {node} from {from} (attempt {}){after}", part.key, part.attempts);
}
