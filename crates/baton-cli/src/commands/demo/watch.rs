//! What the demo prints as it runs, read from the store every 200 ms: the scheduler leader,
//! each finished execution, each batch, and each write the fence refused.

use std::collections::{BTreeMap, HashSet};
use std::time::{Duration, Instant};

use baton::core::cluster::{BatchListParams, BatchState};
use baton::core::job::ExecutionListParams;
use baton::core::{Execution, ExecutionStatus};
use baton::{Backend, Cursor, LeaseName};
use sqlx::SqliteConnection;

/// The narrator's memory of what it already printed.
pub struct Watch {
    started: Instant,
    backend: Backend,
    ledger: SqliteConnection,
    scheduler: LeaseName,
    /// The scheduler leader last printed.
    pub leader: Option<String>,
    after: Option<Cursor>,
    unfinished: BTreeMap<i64, Execution>,
    batches: HashSet<(i64, BatchState)>,
    rejected: i64,
}

impl Watch {
    /// A narrator over `backend`, reading refusals from the `ledger` connection.
    pub fn new(backend: Backend, ledger: SqliteConnection) -> anyhow::Result<Watch> {
        Ok(Watch {
            started: Instant::now(),
            backend,
            ledger,
            scheduler: LeaseName::new("baton-scheduler")?,
            leader: None,
            after: None,
            unfinished: BTreeMap::new(),
            batches: HashSet::new(),
            rejected: 0,
        })
    }

    /// The id of the last refusal printed (0 before any).
    pub fn refusals_seen(&self) -> i64 {
        self.rejected
    }

    /// Seconds since the demo started, for the margin.
    pub fn at(&self) -> String {
        format!("{:>5.1}s", self.started.elapsed().as_secs_f64())
    }

    /// Prints what happened for `length`.
    pub async fn run_for(&mut self, length: Duration) -> anyhow::Result<()> {
        let until = Instant::now() + length;
        while Instant::now() < until {
            self.poll().await?;
            tokio::time::sleep(Duration::from_millis(200)).await;
        }
        Ok(())
    }

    /// Prints what changed since the last poll.
    pub async fn poll(&mut self) -> anyhow::Result<()> {
        self.leader_changes().await?;
        self.executions().await?;
        self.batches().await?;
        self.refusals().await
    }

    /// The current scheduler leader, as the store judges it.
    pub async fn current_leader(&self) -> anyhow::Result<Option<String>> {
        let leases = self.backend.leases();
        let lease = leases.get(&self.scheduler).await?;
        let now = leases.now().await?;
        Ok(lease.and_then(|lease| lease.holder_at(now).map(ToString::to_string)))
    }

    async fn leader_changes(&mut self) -> anyhow::Result<()> {
        let leader = self.current_leader().await?;
        if leader != self.leader {
            if let Some(holder) = &leader {
                let token = self.backend.leases().get(&self.scheduler).await?.map(|l| l.token);
                let token = token.map(|t| t.to_string()).unwrap_or_default();
                println!("{}  {holder} leads the scheduler (lease token {token})", self.at());
            }
            self.leader = leader;
        }
        Ok(())
    }

    async fn executions(&mut self) -> anyhow::Result<()> {
        let jobs = self.backend.jobs();
        loop {
            let params =
                ExecutionListParams { after: self.after, limit: 200, ..Default::default() };
            let page = jobs.execution_list(params).await?;
            for execution in page.items {
                self.after = Some(Cursor::after(execution.id));
                self.unfinished.insert(execution.id, execution);
            }
            if page.next.is_none() {
                break;
            }
        }
        let ids: Vec<i64> = self.unfinished.keys().copied().collect();
        for id in ids {
            let Some(execution) = jobs.execution_get(id).await? else {
                self.unfinished.remove(&id);
                continue;
            };
            if execution.status.is_final() {
                self.unfinished.remove(&id);
                self.print_execution(&execution);
            }
        }
        Ok(())
    }

    fn print_execution(&self, execution: &Execution) {
        let node = execution.node.as_ref().map_or("-".to_owned(), |node| node.to_string());
        let token = execution.token.map_or("-".to_owned(), |token| token.to_string());
        let fire = execution.scheduled_at.to_string();
        let time = fire.split_once('T').map_or(fire.as_str(), |(_, time)| time);
        let mut line = format!(
            "{}  {:<6} {}  attempt {}  {:<9} on {node:<7} token {token}",
            self.at(),
            execution.job,
            time.trim_end_matches('Z'),
            execution.attempt,
            execution.status
        );
        if execution.status != ExecutionStatus::Succeeded {
            line.push_str(&format!("  ({})", execution.detail.as_deref().unwrap_or("")));
        }
        println!("{line}");
    }

    async fn batches(&mut self) -> anyhow::Result<()> {
        let params = BatchListParams { limit: 100, ..Default::default() };
        let batches = self.backend.cluster().batch_list(params).await?.items;
        for batch in batches {
            if self.batches.insert((batch.id, batch.state)) {
                println!("{}  batch {} of {}: {}", self.at(), batch.id, batch.name, batch.state);
            }
        }
        Ok(())
    }

    async fn refusals(&mut self) -> anyhow::Result<()> {
        let refused: Vec<(i64, String, String, String, String)> = sqlx::query_as(
            "SELECT id, job, fire, token, fence FROM demo_rejected WHERE id > ?1 ORDER BY id",
        )
        .bind(self.rejected)
        .fetch_all(&mut self.ledger)
        .await?;
        for (id, job, fire, token, fence) in refused {
            println!(
                "{}  ** {job} {fire}: a late write with token {token} was REJECTED by the fence \
                 (at token {fence}) **",
                self.at()
            );
            self.rejected = id;
        }
        Ok(())
    }
}
