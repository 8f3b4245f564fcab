//! Lease-only stores on the command line: `baton exec` and the lease commands on the store's
//! URL alone, and an agent whose leader leases live there while its jobs and executions live in
//! the site's SQLite file.

use std::time::Duration;

use baton::LeaseName;
use baton::core::ExecutionStatus;
use baton::core::job::ExecutionListParams;

use super::agent::{Site, eventually};
use super::{stderr, stdout};

/// Runs `baton exec --backend lease_url --lock nightly` twice with `exec_options` (the fencing
/// tokens must rise), then `baton history` and `baton lease list` on the same URL; no state
/// store is made on the side.
pub fn exec_and_the_lease_commands_work_alone(site: &Site, lease_url: &str, exec_options: &[&str]) {
    let run = |args: &[&str]| site.baton(args).output().unwrap();
    let exec =
        [&["exec", "--backend", lease_url, "--lock", "nightly"], exec_options, &["--"]].concat();
    let tokens: Vec<u64> = (0..2)
        .map(|_| {
            let out = run(&[&exec[..], &["sh", "-c", "echo $BATON_FENCING_TOKEN"]].concat());
            assert!(out.status.success(), "{}", stderr(&out));
            stdout(&out).trim().parse().unwrap()
        })
        .collect();
    assert!(tokens[1] > tokens[0], "tokens rise: {tokens:?}");
    let history = run(&["history", "--backend", lease_url, "--lease", "nightly"]);
    assert_eq!(stdout(&history).matches("nightly").count(), 2, "{}", stdout(&history));
    let list = run(&["lease", "list", "--backend", lease_url]);
    assert!(stdout(&list).contains("nightly"), "{}", stdout(&list));
    assert!(!site.path("baton.db").exists(), "no SQLite file was made on the side");
}

/// Runs `baton exec --backend lease_url` with `ttl`, which the store refuses: one line on
/// stderr, containing `why`.
pub fn exec_refuses_a_ttl(site: &Site, lease_url: &str, ttl: &str, why: &str) {
    let args = ["exec", "--backend", lease_url, "--lock", "x", "--ttl", ttl, "--", "true"];
    let refused = site.baton(&args).output().unwrap();
    assert!(!refused.status.success());
    assert_eq!(stderr(&refused).lines().count(), 1, "one line: {}", stderr(&refused));
    assert!(stderr(&refused).contains(why), "{}", stderr(&refused));
}

/// Runs an agent with `lease_backend` at `lease_url` and a job every second, and checks that an
/// execution lands in SQLite while the scheduler's lease is held at `lease_url`, not in SQLite.
pub async fn agent_keeps_its_leader_leases_apart(site: &Site, lease_url: &str) {
    let config = format!(
        "backend = \"{}\"\nlease_backend = \"{lease_url}\"\n[[job]]\nname = \"tick\"\n\
         command = [\"true\"]\nevery = \"1s\"\n",
        site.url
    );
    site.write("baton.toml", &config);
    let check = site.check("baton.toml");
    assert!(stderr(&check).is_empty() && check.status.success(), "{}", stderr(&check));
    assert!(stdout(&check).contains(&format!("leases in {lease_url}")), "{}", stdout(&check));
    let _agent = site.start("baton.toml");
    let backend = site.backend().await;
    let params = ExecutionListParams {
        job: Some("tick".parse().unwrap()),
        status: Some(ExecutionStatus::Succeeded),
        ..Default::default()
    };
    eventually("a succeeded execution in SQLite", Duration::from_secs(20), async || {
        backend.jobs().execution_list(params.clone()).await.unwrap().items.into_iter().next()
    })
    .await;
    let scheduler: LeaseName = "baton-scheduler".parse().unwrap();
    let leases = baton::connect_leases(lease_url).await.unwrap();
    let lease = leases.get(&scheduler).await.unwrap().expect("the scheduler lease apart");
    assert!(lease.holder_at(leases.now().await.unwrap()).is_some(), "{lease:?}");
    assert_eq!(backend.leases().get(&scheduler).await.unwrap(), None, "none in SQLite");
}
