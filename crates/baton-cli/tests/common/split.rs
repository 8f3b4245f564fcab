//! An agent whose leader leases live in a lease-only store while its jobs and executions live
//! in the site's SQLite file.

use std::time::Duration;

use baton::LeaseName;
use baton::core::ExecutionStatus;
use baton::core::job::ExecutionListParams;

use super::agent::{Site, eventually};
use super::{stderr, stdout};

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
