//! The agents' config files: the same jobs on every node, a port of its own for each.

use std::path::PathBuf;

/// The demo's timing: short, so that a crash and its failover show within seconds.
pub mod timing {
    use std::time::Duration;

    /// The leader leases' TTL.
    pub const TTL: Duration = Duration::from_secs(3);
    /// A node silent this long is presumed dead; its executions are abandoned.
    pub const UNREACHABLE: Duration = Duration::from_millis(1500);
}

/// Where the demo's agents keep their state and write their ledger.
#[derive(Debug, Clone)]
pub struct Stores {
    /// The agents' backend URL.
    pub backend: String,
    /// The ledger's SQLite file.
    pub ledger: PathBuf,
}

/// The config of agent `node`, listening on `port`, sharing `stores`.
pub fn agent_config(stores: &Stores, node: &str, port: u16) -> anyhow::Result<String> {
    let exe = std::env::current_exe()?;
    let exe = toml_string(&exe.display().to_string());
    let ledger = toml_string(&stores.ledger.display().to_string());
    let backend = toml_string(&stores.backend);
    Ok(format!(
        r#"backend = {backend}
node_id = "{node}"
grace_period = "5s"

[timing]
lease_ttl = "{ttl}ms"
heartbeat_interval = "300ms"
unreachable_after = "{unreachable}ms"

[http]
listen = "127.0.0.1:{port}"

# Every second: write the fire to the ledger through its fence.
[[job]]
name = "tick"
every = "1s"
command = [{exe}, "demo", "write", "--ledger", {ledger}]

# Every 5 seconds: 1.5 s of work, then the write; retried if its node dies.
[[job]]
name = "report"
cron = "*/5 * * * * *"
command = [{exe}, "demo", "write", "--ledger", {ledger}, "--work", "1500ms"]
retry = {{ max_attempts = 3, initial_backoff = "100ms" }}

# Every 20 seconds: six partitions over the live nodes, checkpointed step by step.
[[batch]]
name = "etl"
every = "20s"
partitions = 6
command = [{exe}, "demo", "partition", "--ledger", {ledger}]
"#,
        ttl = timing::TTL.as_millis(),
        unreachable = timing::UNREACHABLE.as_millis(),
    ))
}

/// A TOML basic string holding `text`.
fn toml_string(text: &str) -> String {
    let escaped: String = text
        .chars()
        .flat_map(|c| match c {
            '"' => vec!['\\', '"'],
            '\\' => vec!['\\', '\\'],
            c => vec![c],
        })
        .collect();
    format!("\"{escaped}\"")
}
