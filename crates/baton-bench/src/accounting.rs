//! The accounting pass: a run of each kind of lease operation, one at a time on a fresh
//! client, with the statements and commits it caused, and its section of the report.

use baton::core::AcquireOutcome;
use baton::{HolderId, LeaseName};

use crate::client::Client;
use crate::commits::CommitCounter;
use crate::lease::ACCOUNTED_OPS;
use crate::report::{Table, per, statements_per, verdict};
use crate::statements::{self, SelfCheck};
use crate::target::Target;

/// Statements and commits counted for `ops` operations of one kind.
#[derive(Debug, Clone)]
pub(crate) struct Accounted {
    /// What was done.
    pub(crate) what: &'static str,
    /// How many times.
    pub(crate) ops: u64,
    /// Statements counted.
    pub(crate) statements: u64,
    /// Commits the store counted.
    pub(crate) commits: u64,
}

/// Runs `ops` operations of each kind, one at a time, each kind on a fresh client and with
/// its own reading of the commit counter.
pub(crate) async fn accounting(
    url: &str,
    run: &str,
    ops: usize,
    commits: &mut CommitCounter,
) -> anyhow::Result<Vec<Accounted>> {
    let names = (0..ops)
        .map(|i| LeaseName::new(format!("bench-{run}-each-{i}")))
        .collect::<baton::Result<Vec<_>>>()?;
    let holder = HolderId::generate("bench", fastrand::u32(..));
    let mut tokens = Vec::with_capacity(ops);
    let mut pass = Pass { url, ops: ops as u64, commits };
    let mut rows = Vec::new();
    rows.push(
        pass.run("acquire (free)", Some(&holder), async |client| {
            for name in &names {
                tokens.push(client.acquire_free(name).await?);
            }
            Ok(())
        })
        .await?,
    );
    rows.push(
        pass.run("acquire (refused: held)", None, async |client| {
            for name in &names {
                let refused = matches!(client.acquire(name).await?, AcquireOutcome::Held(_));
                anyhow::ensure!(refused, "lease {name} was granted twice");
            }
            Ok(())
        })
        .await?,
    );
    rows.push(
        pass.run("renew", Some(&holder), async |client| {
            for (name, token) in names.iter().zip(&tokens) {
                client.renew(name, *token).await?;
            }
            Ok(())
        })
        .await?,
    );
    rows.push(
        pass.run("release", Some(&holder), async |client| {
            for (name, token) in names.iter().zip(&tokens) {
                client.release(name, *token).await?;
            }
            Ok(())
        })
        .await?,
    );
    Ok(rows)
}

/// One accounting pass: where to connect, how many operations each run does, and the counter.
struct Pass<'a> {
    url: &'a str,
    ops: u64,
    commits: &'a mut CommitCounter,
}

impl Pass<'_> {
    /// Counts the statements and commits of `work` on a fresh client acting for `holder` (or
    /// a holder of its own).
    async fn run(
        &mut self,
        what: &'static str,
        holder: Option<&HolderId>,
        work: impl AsyncFnOnce(&Client) -> anyhow::Result<()>,
    ) -> anyhow::Result<Accounted> {
        let mark = self.commits.mark().await?;
        let mut client = Client::connect(self.url).await?;
        if let Some(holder) = holder {
            client.holder = holder.clone();
        }
        let before = statements::count();
        work(&client).await?;
        let statements = statements::count() - before;
        drop(client);
        let commits = self.commits.since(&mark).await?;
        Ok(Accounted { what, ops: self.ops, statements, commits })
    }
}

/// The accounting section of the report.
pub(crate) fn render(rows: &[Accounted], check: &SelfCheck, target: &Target) -> String {
    let counting = check.live();
    let postgres = target.is_postgres();
    let mut table = Table::new(&[
        "operation",
        "ops",
        "statements",
        "commits",
        "stmts/op",
        "commits/op",
        "target",
    ]);
    for row in rows {
        // Judged as printed, to two decimals: one-off costs of new connections round away.
        let statements = (row.statements as f64 / row.ops as f64 * 100.0).round() / 100.0;
        let commits = (row.commits as f64 / row.ops as f64 * 100.0).round() / 100.0;
        let targeted = postgres && !row.what.contains("refused");
        let goal = if targeted {
            format!("≤ 1 and ≤ 1 {}", verdict(counting && statements <= 1.0 && commits <= 1.0))
        } else {
            String::new()
        };
        table.row(vec![
            row.what.to_string(),
            row.ops.to_string(),
            if counting { row.statements.to_string() } else { "n/a".into() },
            row.commits.to_string(),
            statements_per(counting, row.statements, row.ops),
            per(Some(row.commits), row.ops),
            goal,
        ]);
    }
    let mut out = format!(
        "Statements and commits per operation ({ACCOUNTED_OPS} of each, one at a time, on a \
         fresh client)\n"
    );
    out.push_str(&table.render());
    out.push_str(&notes(check, target));
    out
}

fn notes(check: &SelfCheck, target: &Target) -> String {
    let mut out = String::new();
    if check.live() {
        let counted = |word: &str| check.counted.iter().any(|s| s.eq_ignore_ascii_case(word));
        let yes_no = |word: &str| if counted(word) { "counted" } else { "not counted" };
        out.push_str(&format!(
            "statements: sqlx's statement events. Self-check on this store: a transaction \
             `BEGIN; SELECT 1; COMMIT` counted as [{}], so BEGIN is {} and COMMIT is {}.\n",
            check.counted.join(", "),
            yes_no("BEGIN"),
            yes_no("COMMIT"),
        ));
    } else {
        out.push_str("statements: n/a (the statement counter layer is not installed)\n");
    }
    match target {
        Target::Postgres { .. } => out.push_str(
            "commits: pg_stat_database.xact_commit, read once the measured sessions closed, less \
             one commit per session start-up and the\ncounter's own; they include the one-off \
             commit of sqlx preparing each statement on each new pooled connection.\n",
        ),
        Target::Mysql { .. } => out.push_str(
            "commits: InnoDB's trx_rw_commits, the read-write transactions committed by every \
             session. A refused acquisition commits too:\nits transaction raised the name's \
             token counter. An acquisition also takes the lease's doorbell (GET_LOCK) on a \
             connection of its own.\n",
        ),
        Target::Sqlite { .. } => {
            out.push_str(
                "Each SQLite lease operation is one BEGIN IMMEDIATE transaction: add its BEGIN \
                 and COMMIT (or ROLLBACK) to the statements above.\n",
            );
            out.push_str(
                "commits: the WAL index commit counter (iChange), which counts commits that \
                 wrote to the WAL: a refused acquisition rolls\nback, and a renewal in the same \
                 millisecond as its acquisition rewrites identical bytes, so SQLite writes \
                 nothing.\n",
            );
        }
    }
    out
}
