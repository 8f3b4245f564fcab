//! Parsing a `redis://`, `rediss://`, `redis+sentinel://` or `rediss+sentinel://` URL, and
//! describing it and its errors without the password.

use baton_core::echo::quoted;
use baton_core::tls::TlsOptions;
use baton_core::url::{redact, single_line};
use baton_core::{Error, Result};
use redis::{
    Client, ClientTlsConfig, ConnectionAddr, ConnectionInfo, IntoConnectionInfo, RedisResult,
    TlsCertificates,
};

const EXPECTED: &str = "expected redis[s]://[user:password@]host:port[/db][?tls-options] or \
                        redis[s]+sentinel://[user:password@]host:port[,host:port…]/master[/db]\
                        [?tls-options]";

/// How a TLS URL takes its certificate files.
const TLS_OPTIONS: TlsOptions =
    TlsOptions { schemes: "rediss:// or rediss+sentinel://", default_roots: "the system's" };

/// The port of a Sentinel when the URL gives none.
const SENTINEL_PORT: u16 = 26379;

/// Where to connect, as parsed from a URL.
pub(crate) struct Target {
    /// What redis-rs needs to connect: to the server itself, or, behind Sentinel, everything
    /// but the address, which the sentinels give.
    pub(crate) info: ConnectionInfo,
    /// The deployment: one server, or a master found through sentinels.
    pub(crate) topology: Topology,
    /// `host:port/db` (`[address]:port/db` for IPv6), or `master NAME/db via Sentinel
    /// host:port,…`, for messages.
    pub(crate) endpoint: String,
    /// The password, so that it can be masked wherever a message might echo it.
    password: Option<String>,
    /// The certificates of a TLS URL (`rediss://`); `None` for plain TCP.
    pub(crate) tls: Option<TlsCertificates>,
}

/// How the server to talk to is found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Topology {
    /// At the URL's address.
    Server,
    /// The master that the sentinels name `master`.
    Sentinel(Sentinels),
}

/// The sentinels of a deployment and the name of the master they watch.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Sentinels {
    /// The master's name in the sentinels' configuration (`sentinel monitor NAME …`).
    pub(crate) master: String,
    /// Their addresses, asked in this order.
    pub(crate) addresses: Vec<(String, u16)>,
}

impl Target {
    /// The database index selected by the URL.
    pub(crate) fn db(&self) -> i64 {
        self.info.redis_settings().db()
    }

    /// `text` on one line with the password masked.
    pub(crate) fn scrub(&self, text: &str) -> String {
        let line = single_line(text);
        match self.password.as_deref().filter(|password| !password.is_empty()) {
            Some(password) => line.replace(password, "***"),
            None => line,
        }
    }
}

/// `host:port`, with an IPv6 address in brackets as in a URL: `[::1]:6379`.
pub(crate) fn address(host: &str, port: u16) -> String {
    match host.contains(':') {
        true => format!("[{host}]:{port}"),
        false => format!("{host}:{port}"),
    }
}

/// A client for `info`, over TLS with `tls` when given (the address then becomes a TLS one).
pub(crate) fn client(info: ConnectionInfo, tls: Option<&TlsCertificates>) -> RedisResult<Client> {
    let Some(tls) = tls else {
        return Client::open(info);
    };
    // redis-rs leaves the choice of a crypto provider to the process: ring, unless the
    // application chose one before.
    let _ = rustls::crypto::ring::default_provider().install_default();
    let info = match info.addr() {
        ConnectionAddr::Tcp(host, port) => {
            let addr = ConnectionAddr::TcpTls {
                host: host.clone(),
                port: *port,
                insecure: false,
                tls_params: None,
            };
            info.set_addr(addr)
        }
        _ => info,
    };
    Client::build_with_tls(info, tls.clone())
}

/// Parses a Redis URL: `redis://` or `rediss://` (TLS) for one server, `redis+sentinel://` or
/// `rediss+sentinel://` for the master of a Sentinel deployment. Other schemes and several
/// hosts outside Sentinel (a Redis Cluster) are refused; every message shows the URL with its
/// password masked. The files a TLS URL names are read here.
pub(crate) fn parse(url: &str) -> Result<Target> {
    let invalid = |why: &str| {
        Error::invalid_input(format!("invalid Redis URL {}: {why}", quoted(&redact(url))))
    };
    let (scheme, rest) = url.split_once("://").ok_or_else(|| invalid(EXPECTED))?;
    let (tls, sentinel) = match scheme {
        "redis" => (false, false),
        "rediss" => (true, false),
        "redis+sentinel" => (false, true),
        "rediss+sentinel" => (true, true),
        other => return Err(invalid(&format!("unsupported scheme {other}://, {EXPECTED}"))),
    };
    if rest.contains('#') {
        return Err(invalid(&format!("a fragment (#…) is not accepted, {EXPECTED}")));
    }
    let (rest, query) = match rest.split_once('?') {
        Some((rest, query)) => (rest, Some(query)),
        None => (rest, None),
    };
    let certificates = certificates(query, tls, &invalid)?;
    let mut target = match sentinel {
        true => parse_sentinel(rest, &invalid)?,
        false => parse_server(scheme, rest, &invalid)?,
    };
    target.tls = certificates;
    Ok(target)
}

/// Reads the TLS options of the query (`ca`, `cert` and `key`, files read at once) as redis-rs
/// takes them. A query without TLS, an unknown option and unreadable or empty files are refused.
fn certificates(
    query: Option<&str>,
    tls: bool,
    invalid: &dyn Fn(&str) -> Error,
) -> Result<Option<TlsCertificates>> {
    let files = TLS_OPTIONS.read(query, tls).map_err(|err| invalid(&err.to_string()))?;
    Ok(files.map(|files| TlsCertificates {
        client_tls: files.client.map(|client| ClientTlsConfig {
            client_cert: client.cert.pem().to_vec(),
            client_key: client.key.pem().to_vec(),
        }),
        root_cert: files.ca.map(|ca| ca.pem().to_vec()),
    }))
}

/// Parses the part after `redis://` or `rediss://`: `[user:password@]host:port[/db]`.
fn parse_server(scheme: &str, rest: &str, invalid: &dyn Fn(&str) -> Error) -> Result<Target> {
    let authority = rest.split('/').next().unwrap_or_default();
    let hosts = authority.rsplit('@').next().unwrap_or_default();
    if hosts.contains(',') {
        return Err(invalid(
            "several hosts: Redis Cluster is not supported (for sentinels, use \
             redis+sentinel://host:port,host:port/master)",
        ));
    }
    let info = connection_info(&format!("{scheme}://{rest}"), invalid)?;
    let redis = info.redis_settings();
    let endpoint = match info.addr() {
        ConnectionAddr::Tcp(host, port) | ConnectionAddr::TcpTls { host, port, .. } => {
            format!("{}/{}", address(host, *port), redis.db())
        }
        addr => format!("{addr}/{}", redis.db()),
    };
    let password = redis.password().map(str::to_string);
    Ok(Target { info, topology: Topology::Server, endpoint, password, tls: None })
}

/// What redis-rs makes of a `redis://` URL.
fn connection_info(url: &str, invalid: &dyn Fn(&str) -> Error) -> Result<ConnectionInfo> {
    url.into_connection_info().map_err(|err| {
        let cause = single_line(&err.to_string());
        invalid(&format!("{cause} ({EXPECTED})"))
    })
}

/// Parses the part after `redis+sentinel://` or `rediss+sentinel://`:
/// `[user:password@]host:port[,host:port…]/master[/db]`. The credentials and the database are
/// the master's; the sentinels are asked without credentials.
fn parse_sentinel(rest: &str, invalid: &dyn Fn(&str) -> Error) -> Result<Target> {
    let (authority, path) = rest.split_once('/').unwrap_or((rest, ""));
    let (userinfo, hosts) = match authority.rsplit_once('@') {
        Some((userinfo, hosts)) => (Some(userinfo), hosts),
        None => (None, authority),
    };
    let addresses = hosts
        .split(',')
        .map(|host| sentinel_address(host).ok_or_else(|| invalid(&bad_host(host))))
        .collect::<Result<Vec<_>>>()?;
    let mut segments = path.split('/');
    let master = segments.next().unwrap_or_default();
    if master.is_empty() {
        return Err(invalid(&format!("no master name after the sentinels, {EXPECTED}")));
    }
    let db = segments.next().filter(|db| !db.is_empty()).unwrap_or("0");
    if segments.next().is_some() {
        return Err(invalid(&format!("path after the database index, {EXPECTED}")));
    }
    // The credentials and database, read by redis-rs as for one server; the address is
    // replaced by the master's once the sentinels name it.
    let userinfo = userinfo.map(|userinfo| format!("{userinfo}@")).unwrap_or_default();
    let info = connection_info(&format!("redis://{userinfo}127.0.0.1/{db}"), invalid)?;
    let list: Vec<String> = addresses.iter().map(|(host, port)| address(host, *port)).collect();
    let endpoint = format!("master {master}/{db} via Sentinel {}", list.join(","));
    let password = info.redis_settings().password().map(str::to_string);
    let sentinels = Sentinels { master: master.to_string(), addresses };
    let topology = Topology::Sentinel(sentinels);
    Ok(Target { info, topology, endpoint, password, tls: None })
}

fn bad_host(host: &str) -> String {
    format!("sentinel address {host:?} is not host:port (an IPv6 address in brackets), {EXPECTED}")
}

/// `host[:port]` or `[ipv6][:port]`, the port 26379 when omitted.
fn sentinel_address(text: &str) -> Option<(String, u16)> {
    let (host, port) = match text.strip_prefix('[') {
        Some(bracketed) => {
            let (host, after) = bracketed.split_once(']')?;
            match after {
                "" => (host, None),
                after => (host, Some(after.strip_prefix(':')?)),
            }
        }
        None => match text.split_once(':') {
            Some((host, port)) => (host, Some(port)),
            None => (text, None),
        },
    };
    let port = match port {
        Some(port) => port.parse().ok().filter(|port| *port != 0)?,
        None => SENTINEL_PORT,
    };
    let valid = !host.is_empty() && !host.contains(['/', '@', ' ', '[', ']']);
    valid.then(|| (host.to_string(), port))
}

#[cfg(test)]
mod tests {
    use super::*;
    use baton_core::ErrorKind;

    #[test]
    fn reads_host_port_database_and_password() {
        let target = parse("redis://app:hunter2@10.0.0.7:6380/3").unwrap();
        assert_eq!(target.endpoint, "10.0.0.7:6380/3");
        assert_eq!(target.db(), 3);
        assert_eq!(target.topology, Topology::Server);
        assert_eq!(target.scrub("AUTH app hunter2\nfailed"), "AUTH app *** failed");
        assert_eq!(parse("redis://localhost").unwrap().endpoint, "localhost:6379/0");
        assert_eq!(parse("redis://[::1]:6380/2").unwrap().endpoint, "[::1]:6380/2");
    }

    #[test]
    fn reads_sentinels_master_name_database_and_credentials() {
        let target =
            parse("redis+sentinel://app:hunter2@10.0.0.7:26380,[::1],sentinel-c/orders/4").unwrap();
        let Topology::Sentinel(sentinels) = &target.topology else { panic!("not Sentinel") };
        assert_eq!(sentinels.master, "orders");
        assert_eq!(
            sentinels.addresses,
            [
                ("10.0.0.7".to_string(), 26380),
                ("::1".to_string(), 26379),
                ("sentinel-c".to_string(), 26379)
            ]
        );
        assert_eq!(target.db(), 4);
        assert_eq!(target.info.redis_settings().username(), Some("app"));
        assert_eq!(target.info.redis_settings().password(), Some("hunter2"));
        assert_eq!(
            target.endpoint,
            "master orders/4 via Sentinel 10.0.0.7:26380,[::1]:26379,sentinel-c:26379"
        );
        let target = parse("redis+sentinel://127.0.0.1:5000/mymaster").unwrap();
        assert_eq!(target.db(), 0);
        assert_eq!(target.info.redis_settings().password(), None);
    }

    #[test]
    fn refuses_tls_clusters_and_other_schemes_in_one_line_without_the_password() {
        for (url, expected) in [
            ("rediss://u:hunter2@db:6379#insecure", "a fragment"),
            ("redis://u:hunter2@db:6379/0?ca=/x.pem", "ca= needs TLS"),
            ("rediss://u:hunter2@db:6379/0?sslmode=require", "unknown option \"sslmode\""),
            ("rediss://u:hunter2@db:6379/0?ca=", "ca= needs a path"),
            ("rediss://u:hunter2@db:6379/0?ca=/nonexistent/ca.pem", "cannot read ca=/nonexistent"),
            ("rediss://u:hunter2@db:6379/0?cert=/a.pem", "cert= and key= go together"),
            ("redis://u:hunter2@a:6379,b:6379", "Redis Cluster is not supported"),
            ("redis+cluster://u:hunter2@db", "unsupported scheme redis+cluster://"),
            ("postgres://u:hunter2@db/x", "expected redis[s]://"),
            ("u:hunter2@db:6379", "expected redis[s]://"),
            ("redis://u:hunter2@db:6379/x", "database"),
            ("redis+sentinel://u:hunter2@a:1,b:2", "no master name"),
            ("redis+sentinel://u:hunter2@a:1,b:2/", "no master name"),
            ("redis+sentinel://u:hunter2@a:1,b:x/m", "sentinel address \"b:x\""),
            ("redis+sentinel://u:hunter2@a:1,,b:2/m", "sentinel address \"\""),
            ("redis+sentinel://u:hunter2@a:1/m/x", "database"),
            ("redis+sentinel://u:hunter2@a:1/m/0/extra", "path after the database"),
            ("redis+sentinel://u:hunter2@a:1/m?db=1", "unknown option \"db\""),
        ] {
            let err = parse(url).err().unwrap_or_else(|| panic!("{url} must be refused"));
            let message = err.to_string();
            assert_eq!(err.kind(), ErrorKind::InvalidInput, "{message}");
            assert!(message.contains(expected), "{url}: {message}");
            assert!(!message.contains("hunter2"), "{message}");
            assert!(!message.contains('\n'), "{message}");
        }
    }
}
