//! `baton batch run JOB`: asks a running agent to start a batch of a partitioned job it runs
//! (the partitions come from the node's config or code, so the store alone cannot start one).

use serde_json::Value;

use super::agent_client::{AgentUrl, post_json};
use super::output::print_json;
use crate::cli::{BatchRunArgs, Output};

/// The variable that holds the agent's admin token.
const TOKEN_VARIABLE: &str = "BATON_ADMIN_TOKEN";

pub async fn run(args: BatchRunArgs, output: Output) -> anyhow::Result<()> {
    let job: baton::core::schedule::JobName = args.job.parse()?;
    let agent: AgentUrl = args.agent.parse()?;
    let token = std::env::var(TOKEN_VARIABLE)
        .ok()
        .filter(|token| !token.trim().is_empty())
        .ok_or_else(|| {
            baton::Error::invalid_input(format!(
                "{TOKEN_VARIABLE} is not set: starting a batch needs the agent's admin token"
            ))
        })?;
    let body = serde_json::json!({ "job": job.as_str() }).to_string();
    let answer = post_json(&agent, "/api/v1/batches", &token, &body).await?;
    let parsed: Value = serde_json::from_str(&answer.body).unwrap_or(Value::Null);
    if answer.status != 201 {
        let message = parsed["error"]["message"].as_str().unwrap_or(answer.body.trim());
        anyhow::bail!("the agent at {agent} answered {}: {message}", answer.status);
    }
    let id = parsed["id"].as_i64().ok_or_else(|| {
        anyhow::anyhow!("the agent at {agent} answered 201 without a batch id: {}", answer.body)
    })?;
    match output {
        Output::Json => print_json(&parsed)?,
        Output::Table => {
            println!("started batch {id} of {job} on {agent}");
            println!("follow it with: baton batch status {id}");
        }
    }
    Ok(())
}
