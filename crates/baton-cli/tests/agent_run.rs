//! `baton agent` running against a SQLite file: scheduled commands and their records, a
//! timeout that stops the command, a killed agent whose command dies with it, a graceful stop
//! that hands the scheduler over at once, a partitioned command spread over two agents, and
//! the HTTP API each agent serves.

use std::collections::BTreeSet;
use std::time::{Duration, Instant};

use baton::core::ExecutionStatus;
use baton::core::cluster::{BatchListParams, BatchState, PartitionListParams, PartitionState};
use baton::core::job::ExecutionListParams;
use baton::{Backend, LeaseName, StoreTime};

mod common;

use common::agent::{Site, eventually, http, process_runs};

/// The executions of `job` in `status`, oldest first.
async fn executions(
    backend: &Backend,
    job: &str,
    status: ExecutionStatus,
) -> Vec<baton::core::Execution> {
    let params = ExecutionListParams {
        job: Some(job.parse().unwrap()),
        status: Some(status),
        limit: 1000,
        ..Default::default()
    };
    backend.jobs().execution_list(params).await.unwrap().items
}

/// The holder of the scheduler lease, if it is held.
async fn scheduler_leader(backend: &Backend) -> Option<String> {
    let name: LeaseName = "baton-scheduler".parse().unwrap();
    let lease = backend.leases().get(&name).await.unwrap()?;
    let now = backend.leases().now().await.unwrap();
    lease.holder_at(now).map(|holder| holder.to_string())
}

#[tokio::test(flavor = "multi_thread")]
async fn a_scheduled_command_succeeds_with_its_output_recorded() {
    let site = Site::new();
    let config = format!(
        "backend = \"{}\"\n[[job]]\nname = \"greet\"\n\
         command = [\"sh\", \"-c\", \"echo hi $BATON_JOB $BATON_FENCING_TOKEN\"]\nevery = \"1s\"\n",
        site.url
    );
    site.write("baton.toml", &config);
    let _agent = site.start("baton.toml");
    let backend = site.backend().await;
    let execution = eventually("a succeeded execution", Duration::from_secs(20), async || {
        executions(&backend, "greet", ExecutionStatus::Succeeded).await.into_iter().next()
    })
    .await;
    let token = execution.token.expect("a token");
    let output = backend.jobs().execution_output(execution.id).await.unwrap();
    assert_eq!(output.as_deref(), Some(format!("hi greet {token}\n").as_str()));
    assert_eq!(execution.detail, None);
}

#[tokio::test(flavor = "multi_thread")]
async fn a_failing_command_fails_with_its_exit_status_and_the_tail_of_its_output() {
    let site = Site::new();
    let config = format!(
        "backend = \"{}\"\noutput_limit = 5\n[[job]]\nname = \"broken\"\n\
         command = [\"sh\", \"-c\", \"echo too-long-oops >&2; exit 3\"]\nevery = \"1s\"\n",
        site.url
    );
    site.write("baton.toml", &config);
    let _agent = site.start("baton.toml");
    let backend = site.backend().await;
    let execution = eventually("a failed execution", Duration::from_secs(20), async || {
        executions(&backend, "broken", ExecutionStatus::Failed).await.into_iter().next()
    })
    .await;
    assert_eq!(execution.detail.as_deref(), Some("exit status 3"));
    let output = backend.jobs().execution_output(execution.id).await.unwrap();
    // Standard error too, kept to its last 5 bytes, saying what was dropped.
    assert_eq!(output.as_deref(), Some("[9 earlier bytes of output not kept]\noops\n"));
}

#[tokio::test(flavor = "multi_thread")]
async fn a_command_past_its_timeout_is_stopped_and_timed_out() {
    let site = Site::new();
    let config = format!(
        "backend = \"{}\"\n[[job]]\nname = \"slow\"\n\
         command = [\"sh\", \"-c\", \"echo $$ > pid-$BATON_EXECUTION_ID; exec sleep 60\"]\n\
         every = \"1s\"\ntimeout = \"1s\"\n",
        site.url
    );
    site.write("baton.toml", &config);
    let _agent = site.start("baton.toml");
    let backend = site.backend().await;
    let execution = eventually("a timed-out execution", Duration::from_secs(20), async || {
        executions(&backend, "slow", ExecutionStatus::TimedOut).await.into_iter().next()
    })
    .await;
    let pid_file = site.path(&format!("pid-{}", execution.id));
    let pid: i32 = std::fs::read_to_string(pid_file).unwrap().trim().parse().unwrap();
    eventually("the command to be gone", Duration::from_secs(5), async || {
        (!process_runs(pid)).then_some(())
    })
    .await;
}

#[cfg(target_os = "linux")]
#[tokio::test(flavor = "multi_thread")]
async fn a_killed_agent_takes_its_running_command_and_the_commands_children_with_it() {
    let site = Site::new();
    let file = site.path("writes");
    let config = format!(
        "backend = \"{}\"\n[[job]]\nname = \"writes\"\n\
         command = [\"sh\", \"-c\", '''{}''', \"sh\", \"{}\"]\nevery = \"1s\"\n",
        site.url,
        common::writers::SCRIPT,
        file.display()
    );
    site.write("baton.toml", &config);
    let mut agent = site.start("baton.toml");
    let writers = common::writers::Writers::started(&file).await;
    agent.kill();
    writers.stop_by_themselves().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn sigterm_stops_within_the_grace_and_hands_the_scheduler_over_at_once() {
    let site = Site::new();
    let config = |node: &str| {
        format!(
            "backend = \"{}\"\nnode_id = \"{node}\"\ngrace_period = \"2s\"\n\
             [[job]]\nname = \"long\"\ncommand = [\"sleep\", \"60\"]\nevery = \"1s\"\n",
            site.url
        )
    };
    site.write("a.toml", &config("agent-a"));
    site.write("b.toml", &config("agent-b"));
    let mut a = site.start("a.toml");
    let backend = site.backend().await;
    eventually("agent-a to lead the scheduler", Duration::from_secs(20), async || {
        (scheduler_leader(&backend).await.as_deref() == Some("agent-a")).then_some(())
    })
    .await;
    eventually("agent-a to run a command", Duration::from_secs(20), async || {
        executions(&backend, "long", ExecutionStatus::Running).await.into_iter().next()
    })
    .await;
    let _b = site.start("b.toml");
    eventually("agent-b to join", Duration::from_secs(20), async || {
        let nodes = backend.cluster().node_list(Default::default()).await.unwrap();
        nodes.items.iter().any(|node| node.id.as_str() == "agent-b").then_some(())
    })
    .await;
    let signalled = Instant::now();
    a.terminate();
    eventually("agent-b to lead the scheduler", Duration::from_secs(1), async || {
        (scheduler_leader(&backend).await.as_deref() == Some("agent-b")).then_some(())
    })
    .await;
    let status = a.exits_within(Duration::from_secs(6)).await;
    assert!(status.success(), "{status:?}");
    let stopped_after = signalled.elapsed();
    // The grace (2 s), then SIGTERM to the command, which `sleep` obeys at once.
    assert!(stopped_after >= Duration::from_secs(2), "{stopped_after:?}");
    assert!(stopped_after < Duration::from_secs(4), "{stopped_after:?}");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_partitioned_command_completes_every_partition_over_two_agents() {
    let site = Site::new();
    let backend = site.backend().await;
    let now = backend.leases().now().await.unwrap();
    let start = StoreTime::from_millis((now.as_millis() / 1000 + 6) * 1000);
    let command = r#"'echo "::baton checkpoint {\"key\":\"$BATON_PARTITION_KEY\"} 1"'"#;
    let config = |node: &str| {
        format!(
            "backend = \"{}\"\nnode_id = \"{node}\"\n[[batch]]\nname = \"split\"\n\
             command = [\"sh\", \"-c\", {command}]\npartitions = 4\nat = \"{start}\"\n",
            site.url
        )
    };
    site.write("a.toml", &config("agent-a"));
    site.write("b.toml", &config("agent-b"));
    let _a = site.start("a.toml");
    let _b = site.start("b.toml");
    let active = eventually("both agents to join", Duration::from_secs(20), async || {
        let nodes = backend.cluster().node_list(Default::default()).await.unwrap();
        (nodes.items.len() == 2).then_some(nodes.items.len())
    })
    .await;
    assert_eq!(active, 2);
    assert!(backend.leases().now().await.unwrap() < start, "both joined before the batch");
    let batch = eventually("the batch to succeed", Duration::from_secs(30), async || {
        let params = BatchListParams { name: Some("split".parse().unwrap()), ..Default::default() };
        let batches = backend.cluster().batch_list(params).await.unwrap().items;
        batches.into_iter().find(|batch| batch.state == BatchState::Succeeded)
    })
    .await;
    let partitions =
        backend.cluster().partition_list(PartitionListParams::new(batch.id)).await.unwrap().items;
    assert_eq!(partitions.len(), 4);
    let mut nodes = BTreeSet::new();
    for partition in &partitions {
        assert_eq!(partition.state, PartitionState::Completed, "{partition:?}");
        assert_eq!(partition.progress, 1, "{partition:?}");
        let checkpoint = partition.checkpoint.as_ref().map(|c| c.as_str().to_owned());
        assert_eq!(checkpoint, Some(format!("{{\"key\":\"{}\"}}", partition.key.as_str())));
        nodes.insert(partition.node.as_ref().unwrap().as_str().to_owned());
    }
    assert_eq!(nodes, BTreeSet::from(["agent-a".to_owned(), "agent-b".to_owned()]));
}

#[tokio::test(flavor = "multi_thread")]
async fn the_agent_serves_its_api_and_steps_down_when_asked() {
    let site = Site::new();
    let config = format!(
        "backend = \"{}\"\nnode_id = \"api-node\"\n[http]\nadmin_token = \"s3cret\"\n\
         [[job]]\nname = \"greet\"\ncommand = [\"true\"]\nevery = \"1s\"\n",
        site.url
    );
    site.write("baton.toml", &config);
    let agent = site.start("baton.toml");
    let address = agent.http_address().await;
    let backend = site.backend().await;
    eventually("the agent to lead the scheduler", Duration::from_secs(20), async || {
        scheduler_leader(&backend).await.filter(|holder| holder.starts_with("api-node"))
    })
    .await;
    assert_eq!(http(&address, "GET", "/healthz", None).0, 200);
    assert_eq!(http(&address, "GET", "/readyz", None).0, 200);
    let (status, jobs) = http(&address, "GET", "/api/v1/jobs", None);
    assert_eq!(status, 200, "{jobs}");
    assert!(jobs.contains("\"greet\""), "{jobs}");
    let step_down = "/api/v1/leases/baton-scheduler/step-down";
    assert_eq!(http(&address, "POST", step_down, None).0, 401, "admin actions need the token");
    let (status, body) = http(&address, "POST", step_down, Some("s3cret"));
    assert_eq!(status, 200, "{body}");
    // The lease is released before the answer, and the node stands aside for two retry
    // periods before it campaigns again.
    assert_eq!(scheduler_leader(&backend).await, None, "the step-down released the lease");
    let (status, actions) = http(&address, "GET", "/api/v1/actions", None);
    assert_eq!(status, 200, "{actions}");
    assert!(actions.contains("lease.step_down"), "the step-down is recorded: {actions}");
    let (status, metrics) = http(&address, "GET", "/metrics", None);
    assert_eq!(status, 200);
    assert!(metrics.contains("baton_"), "{metrics}");
}
