//! `baton nodes` and `baton batch`, run as the real binary against a SQLite file seeded through
//! its cluster store.

use std::time::Duration;

use baton::FencingToken;
use baton::core::cluster::{
    BatchCreateParams, JsonText, NodeId, NodeLeaveParams, NodeLoad, NodeRegisterParams, NodeState,
    NodeSweepParams, NodeThresholds, PartitionCheckpointParams, PartitionClaimParams,
    PartitionCompleteParams, PartitionFailParams, PartitionKey, PartitionSpec, Strategy,
};
use baton::core::{ClusterStore, Result};
use baton::sqlite::SqliteBackend;

mod common;

use common::*;

impl Store {
    /// Runs baton and answers its standard output, failing the test if it failed.
    fn ok(&self, args: &[&str]) -> String {
        let out = self.run(args);
        assert!(out.status.success(), "{args:?}: {}", stderr(&out));
        stdout(&out)
    }

    /// Seeds the cluster described by [`Seeded`].
    fn seed(&self) -> Seeded {
        let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
        runtime
            .block_on(async {
                let backend = SqliteBackend::connect(&self.url).await?;
                backend.migrate().await?;
                let seeded = seed(&backend.cluster()).await;
                backend.close().await;
                seeded
            })
            .unwrap()
    }
}

/// The rows of a table: every line after the header but the next-page line, split on
/// whitespace.
fn rows(table: &str) -> Vec<Vec<&str>> {
    let lines = table.lines().skip(1).filter(|line| !line.starts_with("next page:"));
    lines.map(|line| line.split_whitespace().collect()).collect()
}

/// The cursor of the next page, if the listing printed one.
fn next_page(table: &str) -> Option<&str> {
    table.lines().find_map(|line| line.strip_prefix("next page: --after "))
}

/// The words of the header line.
fn header(table: &str) -> Vec<&str> {
    table.lines().next().unwrap_or_default().split_whitespace().collect()
}

#[test]
fn nodes_shows_each_node_with_its_state_load_and_incarnation() {
    let s = store();
    let seeded = s.seed();
    let list = s.ok(&["nodes"]);
    let expected = ["ID", "HOST", "VERSION", "STATE", "HEARTBEAT", "LOAD", "TOKEN", "STARTED"];
    assert_eq!(header(&list), expected);
    let nodes: Vec<String> = rows(&list)
        .iter()
        .map(|row| {
            assert_eq!(row.len(), 9, "{list}");
            assert!(row[4].ends_with('s') && row[5] == "ago", "a heartbeat age: {list}");
            assert!(baton::StoreTime::parse(row[8]).is_ok(), "a start time: {list}");
            [row[0], row[1], row[2], row[3], row[6], row[7]].join(" ")
        })
        .collect();
    assert_eq!(
        nodes,
        [
            format!("ghost host-ghost 0.1.0 unreachable 0 {}", seeded.ghost),
            format!("n1 host-n1 0.2.1 active 5 {}", seeded.n1),
            format!("n2 host-n2 0.2.0 active 1 {}", seeded.n2),
            format!("n3 host-n3 0.2.0 left 0 {}", seeded.n3),
        ],
        "{list}"
    );
    assert_eq!(next_page(&list), None);

    let left = s.ok(&["nodes", "--state", "LEFT"]);
    let ids: Vec<&str> = rows(&left).iter().map(|row| row[0]).collect();
    assert_eq!(ids, ["n3"], "{left}");
}

#[test]
fn nodes_pages_with_the_printed_cursor() {
    let s = store();
    s.seed();
    let first = s.ok(&["nodes", "--limit", "3"]);
    let ids: Vec<&str> = rows(&first).iter().map(|row| row[0]).collect();
    assert_eq!(ids, ["ghost", "n1", "n2"], "{first}");
    let cursor = next_page(&first).expect("a next page");
    let second = s.ok(&["nodes", "--limit", "3", "--after", cursor]);
    let ids: Vec<&str> = rows(&second).iter().map(|row| row[0]).collect();
    assert_eq!(ids, ["n3"], "{second}");
    assert_eq!(next_page(&second), None, "{second}");
}

#[test]
fn node_changes_show_each_transition_with_its_reason_and_token() {
    let s = store();
    let seeded = s.seed();
    let history = s.ok(&["nodes", "changes"]);
    assert_eq!(header(&history), ["ID", "AT", "NODE", "FROM", "TO", "REASON", "TOKEN"]);
    let changes: Vec<String> = rows(&history).iter().map(|row| row[2..].join(" ")).collect();
    assert_eq!(
        changes,
        [
            format!("ghost - active registered {}", seeded.ghost),
            format!("ghost active unreachable no-heartbeat {}", seeded.ghost),
            format!("n1 - active registered {}", seeded.n1_first),
            format!("n2 - active registered {}", seeded.n2),
            format!("n3 - active registered {}", seeded.n3),
            format!("n3 active left left {}", seeded.n3),
            format!("n1 active active reregistered {}", seeded.n1),
        ],
        "{history}"
    );
    let n1 = s.ok(&["nodes", "changes", "--node", "n1", "--limit", "1"]);
    let reasons: Vec<&str> = rows(&n1).iter().map(|row| row[5]).collect();
    assert_eq!(reasons, ["registered"], "{n1}");
    let cursor = next_page(&n1).expect("a next page");
    let rest = s.ok(&["nodes", "changes", "--node", "n1", "--after", cursor]);
    let reasons: Vec<&str> = rows(&rest).iter().map(|row| row[5]).collect();
    assert_eq!(reasons, ["reregistered"], "{rest}");
}

#[test]
fn batch_list_shows_each_batch_with_its_outcome() {
    let s = store();
    let seeded = s.seed();
    let list = s.ok(&["batch", "list"]);
    let expected = ["ID", "JOB", "STRATEGY", "STATE", "CREATED", "FINISHED", "FAILURE"];
    assert_eq!(header(&list), expected);
    let batches: Vec<String> = rows(&list)
        .iter()
        .map(|row| {
            assert!(baton::StoreTime::parse(row[4]).is_ok(), "a creation time: {list}");
            let finished = match row[5] {
                "-" => "-",
                at => {
                    assert!(baton::StoreTime::parse(at).is_ok(), "a finish time: {list}");
                    "finished"
                }
            };
            [&row[..4], &[finished], &row[6..]].concat().join(" ")
        })
        .collect();
    assert_eq!(
        batches,
        [
            format!("{} etl round-robin running -", seeded.etl),
            format!("{} report free-for-all succeeded finished", seeded.report),
            format!(
                "{} etl round-robin failed finished 1 partition failed: rows-0 (disk full)",
                seeded.etl_failed
            ),
        ],
        "{list}"
    );
    let etl = s.ok(&["batch", "list", "--job", "etl"]);
    let ids: Vec<String> = rows(&etl).iter().map(|row| row[0].to_string()).collect();
    assert_eq!(ids, [seeded.etl.to_string(), seeded.etl_failed.to_string()], "{etl}");
}

#[test]
fn batch_status_shows_the_partitions_and_their_totals() {
    let s = store();
    let seeded = s.seed();
    let status = s.ok(&["batch", "status", &seeded.etl.to_string()]);
    let lines: Vec<&str> = status.lines().collect();
    assert_eq!(lines[0], format!("batch      {}", seeded.etl), "{status}");
    assert_eq!(lines[1..4], ["job        etl", "strategy   round-robin", "state      running"]);
    assert!(lines[4].starts_with("created    "), "{status}");
    let table = status.split("\n\n").nth(1).expect("a partition table");
    let expected = ["ID", "KEY", "NODE", "STATE", "TRY", "PROGRESS", "TOKEN", "HEARTBEAT", "ERROR"];
    assert_eq!(header(table), expected);
    let [c0, c1, c2] = seeded.claims;
    let partitions: Vec<String> = rows(table)
        .iter()
        .take_while(|row| row[0] != "partitions")
        .map(|row| row[1..7].join(" "))
        .collect();
    assert_eq!(
        partitions,
        [
            format!("rows-0 n1 completed 1 0 {c0}"),
            format!("rows-1 n2 claimed 1 500 {c1}"),
            format!("rows-2 n1 failed 1 0 {c2}"),
            "rows-3 n2 pending 0 0 -".to_string(),
        ],
        "{status}"
    );
    let failed = table.lines().find(|line| line.contains(" rows-2 ")).unwrap_or_default();
    assert!(failed.ends_with(" ago bad row 17: no amount"), "first line of the error: {status}");
    let pending = rows(table).into_iter().find(|row| row[1] == "rows-3").unwrap_or_default();
    assert_eq!(pending[6..], ["-", "-"], "no token and no heartbeat yet: {status}");
    assert_eq!(
        lines.last().copied(),
        Some("partitions 4: 1 pending, 1 claimed, 1 completed, 1 failed"),
        "{status}"
    );

    let failed = s.ok(&["batch", "status", &seeded.etl_failed.to_string()]);
    assert!(failed.contains("\nstate      failed\n"), "{failed}");
    assert!(failed.contains("\nfinished   "), "{failed}");
    assert!(failed.contains("\nfailure    1 partition failed: rows-0 (disk full)\n"), "{failed}");
    assert!(failed.ends_with("partitions 1: 0 pending, 0 claimed, 0 completed, 1 failed\n"));
}

#[test]
fn bad_input_gets_one_line_naming_the_value_and_what_is_accepted() {
    let s = store();
    s.seed();
    let cases: [(&[&str], &str); 7] = [
        (&["nodes", "--after", "nope"], r#"invalid cursor "nope": expected"#),
        (&["nodes", "--state", "dead"], r#""dead": expected one of active, unreachable"#),
        (&["nodes", "--limit", "0"], "invalid page size 0: expected 1 to 1000"),
        (&["nodes", "changes", "--after", "c-1"], r#"invalid cursor "c-1": expected"#),
        (&["nodes", "changes", "--node", "two words"], r#"invalid node id "two words""#),
        (&["batch", "list", "--after", "42"], r#"invalid cursor "42": expected"#),
        (&["batch", "status", "first"], "'first' for '<ID>': expected a batch id"),
    ];
    for (args, message) in cases {
        let out = s.run(args);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {}", stderr(&out));
        assert_eq!(stderr(&out).lines().count(), 1, "{args:?}: {}", stderr(&out));
        assert!(stderr(&out).contains(message), "{args:?}: {}", stderr(&out));
        assert_eq!(stdout(&out), "", "{args:?}");
    }
    let unknown = s.run(&["batch", "status", "999"]);
    assert_eq!(unknown.status.code(), Some(1), "{}", stderr(&unknown));
    assert_eq!(stderr(&unknown), "baton: error: batch 999 does not exist\n");
    assert_eq!(stdout(&unknown), "");
}

/// The tokens and ids of the seeded cluster.
///
/// Nodes: `ghost` went silent and is unreachable; `n1` registered twice (the second
/// incarnation has load 5 and version 0.2.1); `n2` is active with load 1; `n3` left.
/// Batch `etl` (round-robin over n1 and n2) has `rows-0` completed, `rows-1` claimed with
/// progress 500, `rows-2` failed and `rows-3` pending; batch `report` (free-for-all) succeeded;
/// a second `etl` batch failed.
struct Seeded {
    ghost: FencingToken,
    n1_first: FencingToken,
    n1: FencingToken,
    n2: FencingToken,
    n3: FencingToken,
    etl: i64,
    report: i64,
    etl_failed: i64,
    /// The claim tokens of rows-0, rows-1 and rows-2 of the `etl` batch.
    claims: [FencingToken; 3],
}

async fn seed(store: &dyn ClusterStore) -> Result<Seeded> {
    let ghost = register(store, "ghost", "0.1.0", 0).await?;
    let thresholds = NodeThresholds::new(
        Duration::from_millis(1),
        Duration::from_millis(2),
        Duration::from_secs(3600),
    )?;
    // The sweep judges silence on the store's clock: wait until that clock has moved on.
    while store.now().await?.saturating_since(ghost.heartbeat_at) <= thresholds.unreachable_after()
    {
        tokio::time::sleep(Duration::from_millis(1)).await;
    }
    let swept = store.node_sweep(NodeSweepParams { thresholds }).await?.changes;
    assert_eq!(swept.len(), 1, "{swept:?}");
    assert_eq!(swept[0].to, NodeState::Unreachable);

    let n1_first = register(store, "n1", "0.2.0", 3).await?;
    let n2 = register(store, "n2", "0.2.0", 1).await?;
    let n3 = register(store, "n3", "0.2.0", 0).await?;
    store.node_leave(NodeLeaveParams { node: n3.id.clone(), token: n3.token }).await?;
    let n1 = register(store, "n1", "0.2.1", 5).await?;

    let live = [NodeLoad::from(&n1), NodeLoad::from(&n2)];
    let plan = |job: &str, strategy, keys: &[&str]| {
        let specs = keys.iter().map(|key| spec(key)).collect::<Result<Vec<_>>>()?;
        BatchCreateParams::plan(job.parse()?, strategy, specs, &live, 100)
    };
    let etl = store
        .batch_create(plan("etl", Strategy::RoundRobin, &["rows-0", "rows-1", "rows-2", "rows-3"])?)
        .await?;
    let on_n1 = claim(store, &n1.id, n1.token, 10, "etl").await?;
    let &[rows0, rows2] = on_n1.as_slice() else { panic!("n1 claimed {on_n1:?}") };
    let result = Some(JsonText::new(r#"{"rows":100}"#)?);
    store
        .partition_complete(PartitionCompleteParams { id: rows0.id, token: rows0.token, result })
        .await?;
    let error = "bad row 17: no amount\n  at parse".to_string();
    store.partition_fail(PartitionFailParams { id: rows2.id, token: rows2.token, error }).await?;
    let on_n2 = claim(store, &n2.id, n2.token, 1, "etl").await?;
    let &[rows1] = on_n2.as_slice() else { panic!("n2 claimed {on_n2:?}") };
    let checkpoint = JsonText::new("500")?;
    let params =
        PartitionCheckpointParams { id: rows1.id, token: rows1.token, checkpoint, progress: 500 };
    store.partition_checkpoint(params).await?;

    let report = store.batch_create(plan("report", Strategy::FreeForAll, &["all"])?).await?;
    for partition in claim(store, &n2.id, n2.token, 10, "report").await? {
        let params =
            PartitionCompleteParams { id: partition.id, token: partition.token, result: None };
        store.partition_complete(params).await?;
    }
    store.batch_finish(report.id).await?;

    let etl_failed = store.batch_create(plan("etl", Strategy::RoundRobin, &["rows-0"])?).await?;
    for partition in claim(store, &n1.id, n1.token, 10, "etl").await? {
        let error = "disk full".to_string();
        store
            .partition_fail(PartitionFailParams { id: partition.id, token: partition.token, error })
            .await?;
    }
    store.batch_finish(etl_failed.id).await?;

    Ok(Seeded {
        ghost: ghost.token,
        n1_first: n1_first.token,
        n1: n1.token,
        n2: n2.token,
        n3: n3.token,
        etl: etl.id,
        report: report.id,
        etl_failed: etl_failed.id,
        claims: [rows0.token, rows1.token, rows2.token],
    })
}

async fn register(
    store: &dyn ClusterStore,
    id: &str,
    version: &str,
    load: u32,
) -> Result<baton::core::cluster::Node> {
    let params = NodeRegisterParams {
        id: NodeId::new(id)?,
        host: format!("host-{id}"),
        version: version.into(),
        load,
    };
    store.node_register(params).await
}

async fn claim(
    store: &dyn ClusterStore,
    node: &NodeId,
    token: FencingToken,
    limit: u32,
    job: &str,
) -> Result<Vec<Claim>> {
    let params =
        PartitionClaimParams { node: node.clone(), token, limit, jobs: vec![job.parse()?] };
    let claimed = store.partition_claim(params).await?;
    Ok(claimed
        .iter()
        .map(|p| Claim { id: p.id, token: p.token.expect("a claim's token") })
        .collect())
}

/// A claimed partition: its id and the token of the claim.
#[derive(Debug, Clone, Copy)]
struct Claim {
    id: i64,
    token: FencingToken,
}

fn spec(key: &str) -> Result<PartitionSpec> {
    Ok(PartitionSpec::new(PartitionKey::new(key)?, JsonText::new(format!(r#"{{"key":"{key}"}}"#))?))
}
