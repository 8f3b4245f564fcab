//! Why a request got no answer, by whether it can have been served.

/// Why a request got no answer.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Failure {
    /// No connection could be opened, or the endpoint refused it before serving anything: the
    /// request was not served. Says why, naming the endpoint.
    Unreachable(String),
    /// The connection failed after the request was sent: it may have been applied.
    Lost(String),
    /// No complete answer came in time: the request may have been applied.
    TimedOut,
}

impl Failure {
    /// Whether the request may have been applied: the outcome is unknown.
    pub fn outcome_unknown(&self) -> bool {
        !matches!(self, Failure::Unreachable(_))
    }
}

impl std::fmt::Display for Failure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Failure::Unreachable(why) => write!(f, "unreachable: {why}"),
            Failure::Lost(why) => write!(f, "the connection failed: {why}"),
            Failure::TimedOut => f.write_str("no answer in time"),
        }
    }
}
