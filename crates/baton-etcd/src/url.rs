//! Parsing an `etcd://[user:password@]host:port[,host:port…]` URL.

use baton_core::echo::quoted;
use baton_core::url::{percent_decode, redact};
use baton_core::{Error, Result};

const EXPECTED: &str = "expected etcd://[user:password@]host:port[,host:port…]";

/// The client port of an etcd member when the URL gives none.
pub(crate) const DEFAULT_PORT: u16 = 2379;

/// Where to connect and as whom, as parsed from a URL.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Target {
    /// The members' client addresses, `host:port` (`[address]:port` for IPv6), in URL order.
    pub(crate) members: Vec<String>,
    /// The user and password for etcd's authentication, if the URL gives them.
    pub(crate) credentials: Option<(String, String)>,
}

impl Target {
    /// The members for messages: `host:port,host:port`.
    pub(crate) fn endpoint(&self) -> String {
        self.members.join(",")
    }

    /// `text` with the password masked.
    pub(crate) fn scrub(&self, text: &str) -> String {
        match &self.credentials {
            Some((_, password)) if !password.is_empty() => text.replace(password, "***"),
            _ => text.to_string(),
        }
    }
}

/// Parses an etcd URL; every message shows it with its password masked.
pub(crate) fn parse(url: &str) -> Result<Target> {
    let invalid = |why: &str| {
        Error::invalid_input(format!("invalid etcd URL {}: {why}", quoted(&redact(url))))
    };
    let rest = url.strip_prefix("etcd://").ok_or_else(|| invalid(EXPECTED))?;
    if rest.contains(['?', '#']) {
        return Err(invalid(&format!("it takes no options; {EXPECTED}")));
    }
    let rest = rest.strip_suffix('/').unwrap_or(rest);
    let (user_info, hosts) = match rest.rsplit_once('@') {
        Some((user_info, hosts)) => (Some(user_info), hosts),
        None => (None, rest),
    };
    if hosts.contains('/') {
        return Err(invalid(&format!("it takes no path; {EXPECTED}")));
    }
    let credentials = user_info.map(|info| credentials(info, &invalid)).transpose()?;
    let members = hosts
        .split(',')
        .map(|member| address(member).map_err(|why| invalid(&why)))
        .collect::<Result<Vec<_>>>()?;
    Ok(Target { members, credentials })
}

fn credentials(info: &str, invalid: &dyn Fn(&str) -> Error) -> Result<(String, String)> {
    let (user, password) = info.split_once(':').unwrap_or((info, ""));
    let user =
        percent_decode(user).ok_or_else(|| invalid("the user is not valid percent-encoding"))?;
    let password = percent_decode(password)
        .ok_or_else(|| invalid("the password is not valid percent-encoding"))?;
    if user.is_empty() {
        return Err(invalid("a password needs a user: etcd://user:password@host:port"));
    }
    Ok((user, password))
}

/// `host:port` from one member of the list, the port 2379 when omitted.
fn address(member: &str) -> std::result::Result<String, String> {
    let (host, port) = match member.strip_prefix('[') {
        Some(bracketed) => {
            let (host, after) =
                bracketed.split_once(']').ok_or("an IPv6 address needs its closing ]")?;
            (format!("[{host}]"), after.strip_prefix(':'))
        }
        None => match member.split_once(':') {
            Some((host, port)) => (host.to_string(), Some(port)),
            None => (member.to_string(), None),
        },
    };
    if host.is_empty() || host == "[]" {
        return Err(format!("a member has no host; {EXPECTED}"));
    }
    let port = match port {
        None => DEFAULT_PORT,
        Some(port) => port
            .parse::<u16>()
            .ok()
            .filter(|port| *port > 0)
            .ok_or_else(|| format!("invalid port {}: expected 1 to 65535", quoted(port)))?,
    };
    Ok(format!("{host}:{port}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn members_credentials_and_default_ports() {
        let target = parse("etcd://app:p%40ss@10.0.0.1:2379,etcd-2,[::1]:32379/").unwrap();
        assert_eq!(target.members, ["10.0.0.1:2379", "etcd-2:2379", "[::1]:32379"]);
        assert_eq!(target.credentials, Some(("app".into(), "p@ss".into())));
        assert_eq!(target.scrub("refused p@ss"), "refused ***");
        assert_eq!(parse("etcd://127.0.0.1:1").unwrap().credentials, None);
    }

    #[test]
    fn bad_urls_name_the_value_and_what_is_accepted() {
        for (url, why) in [
            ("redis://h:1", "expected etcd://"),
            ("etcd://", "has no host"),
            ("etcd://h:1,,h:2", "has no host"),
            ("etcd://h:0", "invalid port \"0\""),
            ("etcd://h:x", "invalid port \"x\""),
            ("etcd://h:1/prefix", "no path"),
            ("etcd://h:1?tls=1", "no options"),
            ("etcd://:secret@h:1", "needs a user"),
            ("etcd://[::1:1", "closing ]"),
        ] {
            let err = parse(url).unwrap_err();
            assert_eq!(err.kind(), baton_core::ErrorKind::InvalidInput);
            let text = err.to_string();
            assert!(text.contains(why), "{url}: {text}");
            assert!(!text.contains("secret"), "{text}");
        }
    }
}
