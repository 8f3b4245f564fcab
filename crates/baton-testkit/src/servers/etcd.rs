//! Throwaway etcd servers started from `etcd` on the PATH: one member, or a cluster of three,
//! each on free loopback ports (client and peer) in its own temporary directory. A single member
//! can also serve its clients TLS only.
//!
//! Members use a heartbeat of 25 ms and an election timeout of 250 ms, so that a leader is
//! elected again within about half a second and the shortest lease etcd grants is 1 s (with
//! etcd's defaults, 100 ms and 1 s, it is 2 s).

use std::io::{Read, Write};
use std::net::{Ipv4Addr, SocketAddr, TcpStream};
use std::path::PathBuf;
use std::process::Command;
use std::time::{Duration, Instant};

use super::process::{ServerProcess, free_port};
use super::spec::{ServerSpec, tcp_accepts};
use super::tls::ServerTls;

const NOT_FOUND: &str = "etcd not found on the PATH: install the etcd-server package \
                         (scripts/test does this when run as root)";

/// Heartbeat interval of test members, in milliseconds.
pub const HEARTBEAT_MS: u64 = 25;
/// Election timeout of test members, in milliseconds.
pub const ELECTION_TIMEOUT_MS: u64 = 250;
/// How long a cluster may take to elect its leader.
const ELECTION_PATIENCE: Duration = Duration::from_secs(30);

/// One etcd member on free loopback ports, in its own temporary directory. Dropping it kills
/// the member and removes the directory; a restart keeps its data.
pub struct EtcdServer {
    process: ServerProcess,
    /// The plain port that answers `/health`: the client port, or for a member serving TLS its
    /// metrics port.
    health_port: u16,
    tls: bool,
}

/// How a member joins its cluster and serves its clients.
struct Membership {
    name: String,
    peer_port: u16,
    initial_cluster: String,
    /// Serve clients TLS only, with a plain metrics listener on this port for `/health`.
    tls: Option<(ServerTls, u16)>,
}

impl EtcdServer {
    /// Starts a one-member cluster and waits until it serves. Panics if `etcd` is missing or
    /// the member does not start (with the tail of its log).
    pub fn start() -> EtcdServer {
        let peer_port = free_port();
        let name = "m0".to_string();
        let initial_cluster = format!("{name}=http://127.0.0.1:{peer_port}");
        let membership = Membership { name, peer_port, initial_cluster, tls: None };
        let server = EtcdServer::launch(membership, true);
        server.wait_healthy();
        server
    }

    /// Starts a one-member cluster serving its clients TLS only with `tls`'s certificate (for
    /// 127.0.0.1 or not, as the test needs); with a client CA, every client must present a
    /// certificate it signed (`--client-cert-auth`). Its health is read on a plain metrics
    /// listener; [`status`](Self::status), [`enable_auth`](Self::enable_auth) and
    /// [`delete_prefix`](Self::delete_prefix) need a plain member.
    pub fn start_tls(tls: ServerTls) -> EtcdServer {
        let peer_port = free_port();
        let name = "m0".to_string();
        let initial_cluster = format!("{name}=http://127.0.0.1:{peer_port}");
        let membership =
            Membership { name, peer_port, initial_cluster, tls: Some((tls, free_port())) };
        let server = EtcdServer::launch(membership, true);
        server.wait_healthy();
        server
    }

    fn launch(membership: Membership, probe_health: bool) -> EtcdServer {
        let binary = binary();
        let metrics_port = membership.tls.as_ref().map(|(_, port)| *port);
        let files = membership.tls.as_ref().map(|(tls, _)| tls.clone());
        let spec = ServerSpec::new("etcd", move |dir, port| {
            let scheme = if membership.tls.is_some() { "https" } else { "http" };
            let client = format!("{scheme}://127.0.0.1:{port}");
            let peer = format!("http://127.0.0.1:{}", membership.peer_port);
            let mut command = Command::new(&binary);
            if let Some((tls, metrics_port)) = &membership.tls {
                command.arg("--cert-file").arg(dir.join(ServerTls::CERT));
                command.arg("--key-file").arg(dir.join(ServerTls::KEY));
                if tls.client_ca_pem.is_some() {
                    command.arg("--client-cert-auth");
                    command.arg("--trusted-ca-file").arg(dir.join(ServerTls::CLIENT_CA));
                }
                command
                    .args(["--listen-metrics-urls", &format!("http://127.0.0.1:{metrics_port}")]);
            }
            command
                .args(["--name", &membership.name])
                .arg("--data-dir")
                .arg(dir.join("data"))
                .args(["--listen-client-urls", &client, "--advertise-client-urls", &client])
                .args(["--listen-peer-urls", &peer, "--initial-advertise-peer-urls", &peer])
                .args(["--initial-cluster", &membership.initial_cluster])
                .args(["--initial-cluster-state", "new", "--initial-cluster-token", "baton-test"])
                .args(["--heartbeat-interval", &HEARTBEAT_MS.to_string()])
                .args(["--election-timeout", &ELECTION_TIMEOUT_MS.to_string()])
                .args(["--logger", "zap", "--log-level", "warn"]);
            command
        });
        // A member of a larger cluster serves only once a quorum runs: until then, listening
        // is all it shows.
        let spec = match probe_health {
            true => spec.probe(move |probe| healthy(metrics_port.unwrap_or(probe.port))),
            false => spec.probe(|probe| tcp_accepts(probe.port)),
        };
        let spec = match files {
            Some(tls) => spec.prepare(move |dir| tls.write_files(dir, None)),
            None => spec,
        };
        let process = ServerProcess::start(spec);
        let health_port = metrics_port.unwrap_or(process.port());
        EtcdServer { process, health_port, tls: metrics_port.is_some() }
    }

    /// The store URL, such as `etcd://127.0.0.1:40123` (`etcds://…` for a member serving TLS,
    /// without TLS options).
    pub fn url(&self) -> String {
        let scheme = if self.tls { "etcds" } else { "etcd" };
        format!("{scheme}://127.0.0.1:{}", self.port())
    }

    /// The client port, the same across restarts.
    pub fn port(&self) -> u16 {
        self.process.port()
    }

    /// The member process: kill, pause, resume or restart it there. Restarted, it keeps its
    /// data and revision.
    pub fn process(&self) -> &ServerProcess {
        &self.process
    }

    /// Waits until the member reports itself healthy (it has a leader and serves).
    pub fn wait_healthy(&self) {
        let deadline = Instant::now() + ELECTION_PATIENCE;
        while !healthy(self.health_port) {
            assert!(Instant::now() < deadline, "etcd on port {} never became healthy", self.port());
            std::thread::sleep(Duration::from_millis(10));
        }
    }

    /// The member's id, and the id of the leader it knows (0 without one).
    pub fn status(&self) -> Option<(String, String)> {
        let answer = post(self.port(), "/v3/maintenance/status", "{}")?;
        let answer: serde_json::Value = serde_json::from_str(&answer).ok()?;
        let id = answer["header"]["member_id"].as_str()?.to_string();
        Some((id, answer["leader"].as_str().unwrap_or("0").to_string()))
    }

    /// Turns etcd's authentication on with a `root` user of password `password` (etcd's own
    /// steps: the user, its `root` role, then enabling).
    pub fn enable_auth(&self, password: &str) {
        let steps = [
            ("/v3/auth/user/add", serde_json::json!({ "name": "root", "password": password })),
            ("/v3/auth/role/add", serde_json::json!({ "name": "root" })),
            ("/v3/auth/user/grant", serde_json::json!({ "user": "root", "role": "root" })),
            ("/v3/auth/enable", serde_json::json!({})),
        ];
        for (path, body) in steps {
            post(self.port(), path, &body.to_string())
                .unwrap_or_else(|| panic!("etcd on port {} refused {path}", self.port()));
        }
    }

    /// Deletes every key starting with `prefix`; answers how many there were.
    pub fn delete_prefix(&self, prefix: &str) -> u64 {
        let body = serde_json::json!({ "key": b64(prefix), "range_end": b64_end(prefix) });
        let answer = self.call("/v3/kv/deleterange", &body);
        answer["deleted"].as_str().map_or(0, |deleted| deleted.parse().expect("a count"))
    }

    /// Deletes the key `key`; answers whether it existed.
    pub fn delete_key(&self, key: &str) -> bool {
        let answer = self.call("/v3/kv/deleterange", &serde_json::json!({ "key": b64(key) }));
        answer["deleted"].as_str() == Some("1")
    }

    /// The keys starting with `prefix`, in key order.
    pub fn keys(&self, prefix: &str) -> Vec<String> {
        let body = serde_json::json!({ "key": b64(prefix), "range_end": b64_end(prefix),
                                       "keys_only": true });
        let answer = self.call("/v3/kv/range", &body);
        let kvs = answer["kvs"].as_array().cloned().unwrap_or_default();
        kvs.iter()
            .map(|kv| {
                use base64::Engine;
                let key = kv["key"].as_str().expect("a key");
                let key = base64::engine::general_purpose::STANDARD.decode(key).expect("base64");
                String::from_utf8(key).expect("a UTF-8 key")
            })
            .collect()
    }

    /// The etcd leases granted with a TTL of `seconds`.
    pub fn leases_granted_for(&self, seconds: i64) -> Vec<String> {
        let answer = self.call("/v3/lease/leases", &serde_json::json!({}));
        let leases = answer["leases"].as_array().cloned().unwrap_or_default();
        leases
            .iter()
            .filter_map(|lease| lease["ID"].as_str().map(str::to_string))
            .filter(|id| {
                let body = serde_json::json!({ "ID": id });
                let answer = self.call("/v3/lease/timetolive", &body);
                answer["grantedTTL"].as_str() == Some(seconds.to_string().as_str())
            })
            .collect()
    }

    /// Revokes the etcd lease `id`, deleting the keys attached to it.
    pub fn revoke(&self, id: &str) {
        self.call("/v3/lease/revoke", &serde_json::json!({ "ID": id }));
    }

    /// Sends one request of the JSON gateway; panics unless it is answered.
    fn call(&self, path: &str, body: &serde_json::Value) -> serde_json::Value {
        let answer = post(self.port(), path, &body.to_string())
            .unwrap_or_else(|| panic!("etcd on port {} did not answer {path}", self.port()));
        serde_json::from_str(&answer).expect("a JSON answer")
    }
}

/// `text` in base64, as the JSON gateway takes keys.
fn b64(text: &str) -> String {
    use base64::Engine;
    base64::engine::general_purpose::STANDARD.encode(text.as_bytes())
}

/// The end of the range of keys starting with `prefix`, in base64.
fn b64_end(prefix: &str) -> String {
    use base64::Engine;
    let mut end = prefix.as_bytes().to_vec();
    *end.last_mut().expect("a non-empty prefix") += 1;
    base64::engine::general_purpose::STANDARD.encode(end)
}

/// Three etcd members forming one cluster on loopback.
pub struct EtcdCluster {
    members: Vec<EtcdServer>,
}

impl EtcdCluster {
    /// Starts three members and waits until they have elected a leader.
    pub fn start() -> EtcdCluster {
        let peers: Vec<u16> = (0..3).map(|_| free_port()).collect();
        let initial_cluster = peers
            .iter()
            .enumerate()
            .map(|(i, port)| format!("m{i}=http://127.0.0.1:{port}"))
            .collect::<Vec<_>>()
            .join(",");
        let members = peers
            .iter()
            .enumerate()
            .map(|(i, peer_port)| {
                let membership = Membership {
                    name: format!("m{i}"),
                    peer_port: *peer_port,
                    initial_cluster: initial_cluster.clone(),
                    tls: None,
                };
                EtcdServer::launch(membership, false)
            })
            .collect();
        let cluster = EtcdCluster { members };
        for member in &cluster.members {
            member.wait_healthy();
        }
        cluster
    }

    /// The URL listing every member, such as `etcd://127.0.0.1:1,127.0.0.1:2,127.0.0.1:3`.
    pub fn url(&self) -> String {
        let members: Vec<String> =
            self.members.iter().map(|member| format!("127.0.0.1:{}", member.port())).collect();
        format!("etcd://{}", members.join(","))
    }

    /// The members.
    pub fn members(&self) -> &[EtcdServer] {
        &self.members
    }

    /// The member that leads now, once the running members agree on one.
    pub fn leader(&self) -> &EtcdServer {
        let deadline = Instant::now() + ELECTION_PATIENCE;
        loop {
            let statuses: Vec<_> = self
                .members
                .iter()
                .filter(|member| member.process().is_running())
                .filter_map(|member| Some((member, member.status()?)))
                .collect();
            if let Some((leader, _)) = statuses.iter().find(|(_, (id, leader))| id == leader) {
                return leader;
            }
            assert!(Instant::now() < deadline, "the etcd cluster elected no leader");
            std::thread::sleep(Duration::from_millis(5));
        }
    }
}

/// Whether the member on `port` reports itself healthy (`GET /health`).
fn healthy(port: u16) -> bool {
    request(port, "GET /health HTTP/1.1", "").is_some_and(|body| body.contains("\"true\""))
}

/// Posts `body` to `path` on the member at `port`; the answer's body, if it answered 200.
fn post(port: u16, path: &str, body: &str) -> Option<String> {
    request(port, &format!("POST {path} HTTP/1.1"), body)
}

fn request(port: u16, line: &str, body: &str) -> Option<String> {
    let addr = SocketAddr::from((Ipv4Addr::LOCALHOST, port));
    let mut stream = TcpStream::connect_timeout(&addr, Duration::from_millis(200)).ok()?;
    stream.set_read_timeout(Some(Duration::from_secs(2))).ok()?;
    let request = format!(
        "{line}\r\nHost: 127.0.0.1\r\nConnection: close\r\nContent-Type: application/json\r\n\
         Content-Length: {}\r\n\r\n{body}",
        body.len()
    );
    stream.write_all(request.as_bytes()).ok()?;
    let mut answer = String::new();
    stream.read_to_string(&mut answer).ok()?;
    let (head, body) = answer.split_once("\r\n\r\n")?;
    head.starts_with("HTTP/1.1 200").then(|| body.to_string())
}

/// `etcd` from the PATH.
fn binary() -> PathBuf {
    let path = std::env::var_os("PATH").unwrap_or_default();
    std::env::split_paths(&path)
        .map(|dir| dir.join("etcd"))
        .find(|candidate| candidate.is_file())
        .unwrap_or_else(|| panic!("{NOT_FOUND}"))
}
