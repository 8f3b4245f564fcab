//! Parsing an `etcd://[user:password@]host:port[,host:port…]` URL, or its TLS form
//! `etcds://…[?ca=PATH&cert=PATH&key=PATH]`.

use baton_core::echo::quoted;
use baton_core::url::{percent_decode, redact};
use baton_core::{Error, Result};

use crate::tls::{self, Tls};

const EXPECTED: &str = "expected etcd://[user:password@]host:port[,host:port…] or, over TLS, \
                        etcds://[user:password@]host:port[,host:port…][?ca=PATH&cert=PATH&key=PATH]";

/// The client port of an etcd member when the URL gives none.
pub(crate) const DEFAULT_PORT: u16 = 2379;

/// Where to connect, how and as whom, as parsed from a URL.
#[derive(Debug, Clone)]
pub(crate) struct Target {
    /// The members' client addresses, `host:port` (`[address]:port` for IPv6), in URL order.
    pub(crate) members: Vec<String>,
    /// The user and password for etcd's authentication, if the URL gives them.
    pub(crate) credentials: Option<(String, String)>,
    /// TLS to every member (`etcds://`); `None` for plain HTTP (`etcd://`).
    pub(crate) tls: Option<Tls>,
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

/// Parses an etcd URL, reading the files a TLS URL names; every message shows it with its
/// password masked.
pub(crate) fn parse(url: &str) -> Result<Target> {
    let invalid = |why: &str| {
        Error::invalid_input(format!("invalid etcd URL {}: {why}", quoted(&redact(url))))
    };
    let (secure, rest) = match url.split_once("://") {
        Some(("etcd", rest)) => (false, rest),
        Some(("etcds", rest)) => (true, rest),
        _ => return Err(invalid(EXPECTED)),
    };
    if rest.contains('#') {
        return Err(invalid(&format!("a fragment (#…) is not accepted; {EXPECTED}")));
    }
    let (rest, query) = match rest.split_once('?') {
        Some((rest, query)) => (rest, Some(query)),
        None => (rest, None),
    };
    let files = tls::OPTIONS.read(query, secure).map_err(|err| invalid(&err.to_string()))?;
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
    let tls = match files {
        None => None,
        Some(files) => {
            for member in &members {
                tls::server_name(member).map_err(|why| invalid(&why))?;
            }
            Some(Tls::new(files).map_err(|why| invalid(&why))?)
        }
    };
    Ok(Target { members, credentials, tls })
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
        assert!(target.tls.is_none());
        assert_eq!(parse("etcd://127.0.0.1:1").unwrap().credentials, None);
    }

    #[test]
    fn etcds_is_tls_to_every_member_with_the_built_in_cas_unless_given_one() {
        let target = parse("etcds://app:secret@etcd-1:2379,10.0.0.2,[::1]").unwrap();
        assert_eq!(target.members, ["etcd-1:2379", "10.0.0.2:2379", "[::1]:2379"]);
        assert!(target.tls.is_some());
        let dir = tempfile::tempdir().unwrap();
        let made = rcgen::generate_simple_self_signed(vec!["etcd-1".to_string()]).unwrap();
        let (ca, key) = (dir.path().join("ca.pem"), dir.path().join("key.pem"));
        std::fs::write(&ca, made.cert.pem()).unwrap();
        std::fs::write(&key, made.signing_key.serialize_pem()).unwrap();
        let (ca, key) = (ca.display(), key.display());
        let url = format!("etcds://etcd-1?ca={ca}&cert={ca}&key={key}");
        assert!(parse(&url).unwrap().tls.is_some());
    }

    #[test]
    fn bad_urls_name_the_value_and_what_is_accepted() {
        for (url, why) in [
            ("redis://h:1", "expected etcd://"),
            ("etcd:/h:1", "or, over TLS, etcds://"),
            ("etcd://", "has no host"),
            ("etcd://h:1,,h:2", "has no host"),
            ("etcd://h:0", "invalid port \"0\""),
            ("etcd://h:x", "invalid port \"x\""),
            ("etcd://h:1/prefix", "no path"),
            ("etcd://h:1#x", "a fragment"),
            ("etcd://:secret@h:1", "needs a user"),
            ("etcd://[::1:1", "closing ]"),
            ("etcd://h:1?ca=/ca.pem", "ca= needs TLS: use etcds://"),
            ("etcd://h:1?tls=1", "unknown option \"tls\": accepted are ca=PATH"),
            ("etcds://h:1?sslmode=verify-full", "unknown option \"sslmode\""),
            ("etcds://h:1?ca=", "ca= needs a path"),
            ("etcds://u:secret@h:1?ca=/nonexistent/ca.pem", "cannot read ca=/nonexistent/ca.pem"),
            ("etcds://h:1?cert=/c.pem", "cert= and key= go together"),
            ("etcds://bad_host!:1", "host \"bad_host!\" is neither a DNS name nor an IP"),
        ] {
            let err = parse(url).unwrap_err();
            assert_eq!(err.kind(), baton_core::ErrorKind::InvalidInput);
            let text = err.to_string();
            assert!(text.contains(why), "{url}: {text}");
            assert!(!text.contains("secret") && !text.contains('\n'), "{text}");
        }
    }

    #[test]
    fn files_that_hold_no_pem_are_named_with_their_option() {
        let dir = tempfile::tempdir().unwrap();
        let empty = dir.path().join("empty.pem");
        std::fs::write(&empty, "").unwrap();
        let empty = empty.display();
        for (url, why) in [
            (format!("etcds://h?ca={empty}"), format!("ca={empty} holds no PEM certificate")),
            (format!("etcds://h?cert={empty}&key={empty}"), format!("cert={empty} holds no PEM")),
        ] {
            let text = parse(&url).unwrap_err().to_string();
            assert!(text.contains(&why), "{url}: {text}");
        }
    }
}
