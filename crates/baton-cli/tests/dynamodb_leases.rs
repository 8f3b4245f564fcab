//! Leases in DynamoDB (moto's emulation, started by the testkit), state elsewhere: `baton exec`
//! and the lease commands on a `dynamodb://` URL alone, an agent whose leader leases live there
//! while its jobs and executions live in SQLite, credentials from the environment, and the
//! line printed when no region is given.

use baton_testkit::servers::MotoServer;

mod common;

use common::agent::Site;
use common::{split, stderr};

/// The AWS variables a test sets or removes, so that the caller's own never leak in.
const AWS_VARIABLES: [&str; 8] = [
    "AWS_ACCESS_KEY_ID",
    "AWS_SECRET_ACCESS_KEY",
    "AWS_SESSION_TOKEN",
    "AWS_REGION",
    "AWS_DEFAULT_REGION",
    "AWS_PROFILE",
    "AWS_CONFIG_FILE",
    "AWS_SHARED_CREDENTIALS_FILE",
];

#[test]
fn exec_and_the_lease_commands_work_on_dynamodb_alone() {
    let server = MotoServer::start();
    let site = Site::new();
    split::exec_and_the_lease_commands_work_alone(&site, &server.url(), &["--ttl", "5s"]);
    split::exec_refuses_a_ttl(&site, &server.url(), "5ms", "invalid TTL");
}

#[tokio::test(flavor = "multi_thread")]
async fn an_agent_keeps_its_leader_leases_in_dynamodb_and_its_state_in_sql() {
    let server = MotoServer::start();
    split::agent_keeps_its_leader_leases_apart(&Site::new(), &server.url()).await;
}

#[test]
fn credentials_come_from_the_environment_and_a_wrong_secret_is_one_line() {
    let server = MotoServer::start_enforcing_credentials();
    let site = Site::new();
    let home = tempfile::tempdir().unwrap();
    let url = format!(
        "dynamodb://{}?region={}&endpoint={}",
        MotoServer::TABLE,
        MotoServer::REGION,
        server.endpoint()
    );
    let list = |secret: &str| {
        let mut command = site.baton(&["lease", "list", "--backend", &url]);
        for name in AWS_VARIABLES {
            command.env_remove(name);
        }
        command
            .env("HOME", home.path())
            .env("AWS_ACCESS_KEY_ID", MotoServer::ACCESS_KEY_ID)
            .env("AWS_SECRET_ACCESS_KEY", secret)
            .output()
            .unwrap()
    };
    let listed = list(MotoServer::SECRET_ACCESS_KEY);
    assert!(listed.status.success(), "{}", stderr(&listed));
    let refused = list("not-the-secret");
    assert!(!refused.status.success());
    assert_eq!(stderr(&refused).lines().count(), 1, "one line: {}", stderr(&refused));
    assert!(stderr(&refused).contains("refused the credentials"), "{}", stderr(&refused));
    assert!(!stderr(&refused).contains("not-the-secret"), "{}", stderr(&refused));
}

#[test]
fn without_a_region_the_command_says_so_in_one_line() {
    let server = MotoServer::start();
    let site = Site::new();
    let home = tempfile::tempdir().unwrap();
    let url = format!("dynamodb://{}?endpoint={}", MotoServer::TABLE, server.endpoint());
    let mut command = site.baton(&["lease", "list", "--backend", &url]);
    for name in AWS_VARIABLES {
        command.env_remove(name);
    }
    let out = command.env("HOME", home.path()).output().unwrap();
    assert!(!out.status.success());
    assert_eq!(stderr(&out).lines().count(), 1, "one line: {}", stderr(&out));
    assert!(stderr(&out).contains("no AWS region"), "{}", stderr(&out));
}
