//! The line protocol between a benchmark and its node processes (`baton bench node`).
//!
//! The parent writes one command per line to a node's stdin; a node writes one message per
//! line to its stdout: `ready` once it works, `done` while it drains executions, and after
//! `stop` its report (tallies, samples) closed by `end`. Words are separated by single spaces.

use std::time::Duration;

use crate::tally::Entry;

/// What the parent tells a node.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Command {
    /// Start working (the executions scenario waits for this; the others start at once).
    Start,
    /// Take the tally at the start of the measured window.
    Mark,
    /// Take the tally at the end of the measured window.
    Snap,
    /// Shut down gracefully, report, and exit.
    Stop,
}

impl Command {
    /// The line that carries the command.
    pub(crate) fn line(self) -> &'static str {
        match self {
            Command::Start => "start",
            Command::Mark => "mark",
            Command::Snap => "snap",
            Command::Stop => "stop",
        }
    }

    /// Reads a command line; `None` for anything else.
    pub(crate) fn parse(line: &str) -> Option<Command> {
        match line.trim() {
            "start" => Some(Command::Start),
            "mark" => Some(Command::Mark),
            "snap" => Some(Command::Snap),
            "stop" => Some(Command::Stop),
            _ => None,
        }
    }
}

/// What a node tells the parent.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Message {
    /// The node works; it runs as this holder id.
    Ready(String),
    /// Executions completed so far.
    Done(u64),
    /// One kind of store call in the measured window.
    Tally(String, Entry),
    /// How long the measured window lasted on the node.
    Window(Duration),
    /// The handler of execution `id` started `lag_us` microseconds after its fire's instant
    /// `scheduled_ms` (store clock).
    Lag { id: i64, scheduled_ms: i64, lag_us: i64 },
    /// `count` executions completed in the millisecond `offset_ms` after the start.
    Completed { offset_ms: u64, count: u64 },
    /// The report is complete.
    End,
}

impl Message {
    /// The line that carries the message.
    pub(crate) fn line(&self) -> String {
        match self {
            Message::Ready(node) => format!("ready {node}"),
            Message::Done(count) => format!("done {count}"),
            Message::Tally(call, e) => format!(
                "tally {call} {} {} {} {} {}",
                e.calls,
                e.statements,
                e.items,
                e.busy.as_micros(),
                e.errors
            ),
            Message::Window(length) => format!("window {}", length.as_micros()),
            Message::Lag { id, scheduled_ms, lag_us } => {
                format!("lag {id} {scheduled_ms} {lag_us}")
            }
            Message::Completed { offset_ms, count } => format!("completed {offset_ms} {count}"),
            Message::End => "end".to_string(),
        }
    }

    /// Reads a message line; `None` for anything else.
    pub(crate) fn parse(line: &str) -> Option<Message> {
        let mut words = line.split_whitespace();
        let kind = words.next()?;
        let rest: Vec<&str> = words.collect();
        let number = |i: usize| rest.get(i).and_then(|w| w.parse::<u64>().ok());
        let message = match (kind, rest.len()) {
            ("ready", 1) => Message::Ready(rest[0].to_string()),
            ("done", 1) => Message::Done(number(0)?),
            ("tally", 6) => Message::Tally(
                rest[0].to_string(),
                Entry {
                    calls: number(1)?,
                    statements: number(2)?,
                    items: number(3)?,
                    busy: Duration::from_micros(number(4)?),
                    errors: number(5)?,
                },
            ),
            ("window", 1) => Message::Window(Duration::from_micros(number(0)?)),
            ("lag", 3) => Message::Lag {
                id: rest[0].parse().ok()?,
                scheduled_ms: rest[1].parse().ok()?,
                lag_us: rest[2].parse().ok()?,
            },
            ("completed", 2) => Message::Completed { offset_ms: number(0)?, count: number(1)? },
            ("end", 0) => Message::End,
            _ => return None,
        };
        Some(message)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn messages_survive_their_lines() {
        let entry = Entry {
            calls: 3,
            statements: 4,
            items: 1000,
            busy: Duration::from_micros(1234),
            errors: 1,
        };
        for message in [
            Message::Ready("bench-1-node0".into()),
            Message::Done(99),
            Message::Tally("record_fires".into(), entry),
            Message::Window(Duration::from_micros(30_000_001)),
            Message::Lag { id: 42, scheduled_ms: 1_800_000_000_000, lag_us: -250 },
            Message::Completed { offset_ms: 12, count: 7 },
            Message::End,
        ] {
            assert_eq!(Message::parse(&message.line()), Some(message.clone()), "{message:?}");
        }
        assert_eq!(Message::parse("lag 1 2"), None);
        assert_eq!(Message::parse("bench: something else"), None);
    }

    #[test]
    fn commands_survive_their_lines() {
        for command in [Command::Start, Command::Mark, Command::Snap, Command::Stop] {
            assert_eq!(Command::parse(command.line()), Some(command));
        }
        assert_eq!(Command::parse("go"), None);
    }
}
