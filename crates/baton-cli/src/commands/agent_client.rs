//! A minimal HTTP/1.1 client for the one request the command line sends to a running agent:
//! a JSON POST with the admin token, over plain TCP.

use std::time::Duration;

use anyhow::Context;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

/// How long the whole exchange may take.
const DEADLINE: Duration = Duration::from_secs(30);
/// The largest answer read.
const MAX_ANSWER_BYTES: u64 = 1 << 20;

/// An agent's base URL: `http://HOST:PORT`, optionally with a path prefix.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AgentUrl {
    /// `HOST:PORT`.
    authority: String,
    /// The path prefix, without a trailing slash (empty for none).
    prefix: String,
}

impl std::str::FromStr for AgentUrl {
    type Err = baton::Error;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        let refused = || {
            baton::Error::invalid_input(format!(
                "invalid agent URL {}: expected http://HOST:PORT, such as \
                 http://127.0.0.1:8080",
                baton::core::echo::quoted(text)
            ))
        };
        let rest = text.strip_prefix("http://").ok_or_else(refused)?;
        let (authority, prefix) = rest.split_once('/').unwrap_or((rest, ""));
        let (host, port) = authority.rsplit_once(':').ok_or_else(refused)?;
        let port_ok = port.parse::<u16>().is_ok_and(|port| port > 0);
        let host_ok = !host.is_empty() && !host.contains(['@', '?', '#', ' ']);
        if !port_ok || !host_ok {
            return Err(refused());
        }
        let prefix = prefix.trim_end_matches('/');
        let prefix = if prefix.is_empty() { String::new() } else { format!("/{prefix}") };
        Ok(AgentUrl { authority: authority.to_string(), prefix })
    }
}

impl std::fmt::Display for AgentUrl {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "http://{}{}", self.authority, self.prefix)
    }
}

/// An agent's answer: the status code and the body.
#[derive(Debug)]
pub struct Answer {
    /// The HTTP status code.
    pub status: u16,
    /// The body, as text.
    pub body: String,
}

/// POSTs `body` (JSON) to `path` of the agent with the admin `token`, and reads the answer.
pub async fn post_json(
    agent: &AgentUrl,
    path: &str,
    token: &str,
    body: &str,
) -> anyhow::Result<Answer> {
    tokio::time::timeout(DEADLINE, exchange(agent, path, token, body))
        .await
        .with_context(|| format!("the agent at {agent} did not answer within {DEADLINE:?}"))?
        .with_context(|| format!("asking the agent at {agent}"))
}

async fn exchange(agent: &AgentUrl, path: &str, token: &str, body: &str) -> anyhow::Result<Answer> {
    let mut stream = TcpStream::connect(&agent.authority).await?;
    let request = format!(
        "POST {}{path} HTTP/1.1\r\nHost: {}\r\nAuthorization: Bearer {token}\r\n\
         Content-Type: application/json\r\nContent-Length: {}\r\nX-Baton-Actor: baton-cli\r\n\
         Connection: close\r\n\r\n{body}",
        agent.prefix,
        agent.authority,
        body.len()
    );
    stream.write_all(request.as_bytes()).await?;
    let mut raw = Vec::new();
    stream.take(MAX_ANSWER_BYTES).read_to_end(&mut raw).await?;
    parse_answer(&raw)
}

/// Splits an HTTP/1.1 answer read to its end into its status and body.
fn parse_answer(raw: &[u8]) -> anyhow::Result<Answer> {
    let text = String::from_utf8_lossy(raw);
    let (head, body) = text.split_once("\r\n\r\n").context("the answer is not HTTP")?;
    let status = head
        .lines()
        .next()
        .and_then(|line| line.strip_prefix("HTTP/1.1 ").or_else(|| line.strip_prefix("HTTP/1.0 ")))
        .and_then(|rest| rest.get(..3))
        .and_then(|code| code.parse::<u16>().ok())
        .context("the answer has no HTTP status line")?;
    let chunked = head
        .lines()
        .any(|line| line.to_ascii_lowercase().replace(' ', "") == "transfer-encoding:chunked");
    anyhow::ensure!(!chunked, "the agent answered in chunks, which this client does not read");
    Ok(Answer { status, body: body.to_string() })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn agent_urls_are_http_host_and_port() {
        let url: AgentUrl = "http://127.0.0.1:8080".parse().unwrap();
        assert_eq!(url.to_string(), "http://127.0.0.1:8080");
        let url: AgentUrl = "http://agent.local:9000/baton/".parse().unwrap();
        assert_eq!(url.to_string(), "http://agent.local:9000/baton");
        for bad in [
            "127.0.0.1:8080",
            "https://a:1",
            "http://a",
            "http://a:0",
            "http://:80",
            "http://u@a:1",
        ] {
            let err = bad.parse::<AgentUrl>().unwrap_err().to_string();
            assert!(err.contains(&format!("{bad:?}")) && err.contains("http://HOST:PORT"), "{err}");
        }
    }

    #[test]
    fn answers_give_their_status_and_body() {
        let answer = parse_answer(b"HTTP/1.1 201 Created\r\ncontent-length: 2\r\n\r\n{}").unwrap();
        assert_eq!((answer.status, answer.body.as_str()), (201, "{}"));
        assert!(parse_answer(b"garbage").is_err());
    }
}
