//! Leases in Redis, state elsewhere: `baton exec` and the lease commands on a Redis URL alone,
//! the one line that asks for a state store when one is needed, and an agent whose leader
//! leases live in Redis while its jobs and executions live in SQLite.

use baton_testkit::servers::RedisServer;

mod common;

use common::agent::Site;
use common::split;
use common::{stderr, stdout};

#[test]
fn exec_and_the_lease_commands_work_on_redis_alone() {
    let redis = RedisServer::start();
    split::exec_and_the_lease_commands_work_alone(&Site::new(), &redis.url(), &[]);
}

#[test]
fn a_command_that_needs_state_asks_for_a_state_store_in_one_line() {
    let redis = RedisServer::start();
    let site = Site::new();
    for args in [
        vec!["exec", "--backend", &redis.url(), "--job", "report", "--", "true"],
        vec!["jobs", "list", "--backend", &redis.url()],
        vec!["migrate", "--backend", &redis.url()],
    ] {
        let out = site.baton(&args).output().unwrap();
        let err = stderr(&out);
        assert!(!out.status.success(), "{args:?}");
        assert_eq!(err.lines().count(), 1, "one line: {err}");
        assert!(err.contains("holds leases only"), "{err}");
        assert!(err.contains("--lease-backend"), "{err}");
    }
    let list = site.baton(&["lease", "list", "--backend", &redis.url()]).output().unwrap();
    assert_eq!(stdout(&list).lines().count(), 1, "only the header: {}", stdout(&list));
}

#[tokio::test(flavor = "multi_thread")]
async fn an_agent_keeps_its_leader_leases_in_redis_and_its_state_in_sql() {
    let server = RedisServer::start();
    split::agent_keeps_its_leader_leases_apart(&Site::new(), &server.url()).await;
}
