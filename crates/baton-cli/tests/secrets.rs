//! Credentials stay out of what baton prints and out of the commands it runs: URLs are
//! printed redacted, and commands get `BATON_BACKEND` only when asked.

use std::time::Duration;

use baton::core::ExecutionStatus;
use baton::core::job::ExecutionListParams;

mod common;

use common::agent::{Site, eventually};
use common::{baton, stderr, stdout, store};

const SECRET: &str = "hunter2";

/// A PostgreSQL URL with its password in the query; nothing listens on port 1.
fn secret_url() -> String {
    format!("postgres://app@127.0.0.1:1/db?sslmode=disable&password={SECRET}")
}

#[test]
fn check_and_migrate_print_the_url_redacted() {
    let site = Site::new();
    site.write("baton.toml", "");
    let mut check = site.baton(&["agent", "--config", "baton.toml", "--check"]);
    let check = check.env("BATON_BACKEND", secret_url()).output().unwrap();
    assert!(check.status.success(), "{}", stderr(&check));
    assert!(stdout(&check).contains("sslmode=disable&password=***"), "{}", stdout(&check));
    let migrate = baton(&["migrate", "--backend", &secret_url()]);
    assert!(!migrate.status.success());
    let printed = format!("{}{}{}", stdout(&check), stdout(&migrate), stderr(&migrate));
    assert!(!printed.contains(SECRET), "{printed}");
}

#[test]
fn exec_hands_the_store_url_to_the_command_only_when_asked() {
    let s = store();
    let script = "echo ${BATON_BACKEND:-unset}";
    let kept = s.run(&["exec", "--lock", "quiet", "--", "sh", "-c", script]);
    assert!(kept.status.success(), "{}", stderr(&kept));
    assert_eq!(stdout(&kept), "unset\n");
    let passed = s.run(&["exec", "--lock", "quiet", "--pass-backend", "--", "sh", "-c", script]);
    assert!(passed.status.success(), "{}", stderr(&passed));
    assert_eq!(stdout(&passed), format!("{}\n", s.url));
}

/// The output the agent recorded for the first succeeded run of `job`, with `pass_backend`
/// set as given and `BATON_BACKEND` in the agent's environment.
async fn job_environment(pass_backend: bool) -> (String, String) {
    let site = Site::new();
    let config = format!(
        "pass_backend = {pass_backend}\n[[job]]\nname = \"env\"\n\
         command = [\"sh\", \"-c\", \"echo ${{BATON_BACKEND:-unset}} ${{BATON_ADMIN_TOKEN:-unset}}\"]\n\
         every = \"1s\"\n"
    );
    site.write("baton.toml", &config);
    let vars = [("BATON_BACKEND", site.url.as_str()), ("BATON_ADMIN_TOKEN", "admin-secret")];
    let _agent = site.start_with("baton.toml", &vars);
    let backend = site.backend().await;
    let params = ExecutionListParams {
        job: Some("env".parse().unwrap()),
        status: Some(ExecutionStatus::Succeeded),
        ..Default::default()
    };
    let execution = eventually("a succeeded execution", Duration::from_secs(20), async || {
        backend.jobs().execution_list(params.clone()).await.unwrap().items.into_iter().next()
    })
    .await;
    let output = backend.jobs().execution_output(execution.id).await.unwrap();
    (output.unwrap_or_default(), site.url.clone())
}

#[tokio::test(flavor = "multi_thread")]
async fn agent_commands_get_the_store_url_only_with_pass_backend() {
    let (output, _) = job_environment(false).await;
    assert_eq!(output, "unset unset\n");
    let (output, url) = job_environment(true).await;
    assert_eq!(output, format!("{url} unset\n"), "the admin token is never passed");
}
