//! Throwaway ZooKeeper servers from Debian's `zookeeper` package: the server classes run
//! straight from its jar (no system service), standalone or as a three-member ensemble, each
//! member on a free loopback port in its own temporary directory, with the admin server off.

use std::io::{Read, Write};
use std::net::{Ipv4Addr, SocketAddr, TcpStream};
use std::path::Path;
use std::process::Command;
use std::sync::OnceLock;
use std::time::{Duration, Instant};

use super::process::{ServerProcess, free_port};
use super::spec::ServerSpec;

/// The jar of Debian's `zookeeper` package; its manifest names the jars it needs.
const JAR: &str = "/usr/share/java/zookeeper.jar";
const NOT_FOUND: &str = "ZooKeeper not found (no /usr/share/java/zookeeper.jar, or no java on \
                         the PATH): install the zookeeper package (scripts/test does this when \
                         run as root)";
/// The server's tick: sessions may last 2 to 300 ticks (maxSessionTimeout is raised to 60 s).
const TICK_MS: u64 = 200;
/// How long an ensemble may take to elect a leader.
const SETTLE: Duration = Duration::from_secs(60);

/// One ZooKeeper server: standalone, or a member of a [`ZookeeperEnsemble`]. Dropping it
/// kills the server and removes its directory.
pub struct ZookeeperServer {
    process: ServerProcess,
}

impl ZookeeperServer {
    /// Starts a standalone server and waits until it serves. Panics if the `zookeeper`
    /// package or Java is missing, or the server does not start (with the tail of its log).
    pub fn start() -> ZookeeperServer {
        ZookeeperServer::launch(None, false)
    }

    /// One standalone server for the whole test process, started on first use: the JVM's
    /// start-up is paid once. It runs until the test process exits, and dies with it (it is
    /// started from a thread that lives as long as the process, with `setpriv --pdeathsig`).
    pub fn shared() -> &'static ZookeeperServer {
        static SHARED: OnceLock<ZookeeperServer> = OnceLock::new();
        SHARED.get_or_init(|| {
            let (sender, receiver) = std::sync::mpsc::channel();
            std::thread::spawn(move || {
                let _ = sender.send(ZookeeperServer::launch(None, true));
                loop {
                    std::thread::park();
                }
            });
            receiver.recv().expect("the shared ZooKeeper server started")
        })
    }

    /// A standalone server, or member `id` (1-based) of an ensemble whose members' peer ports
    /// are `peers`.
    /// With `tied`, the server gets SIGKILL when the thread that started it exits.
    fn launch(member: Option<(usize, Vec<(u16, u16)>)>, tied: bool) -> ZookeeperServer {
        let java = java();
        let spec = ServerSpec::new("zookeeper", move |dir, port| {
            write_config(dir, port, member.as_ref()).expect("writing zoo.cfg");
            let mut command = match tied {
                true => Command::new("setpriv"),
                false => Command::new(&java),
            };
            if tied {
                command.args(["--pdeathsig", "KILL", "--"]).arg(&java);
            }
            command
                .args(["-Xmx256m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1"])
                .arg("-Dzookeeper.admin.enableServer=false")
                .args(["-cp", JAR, "org.apache.zookeeper.server.quorum.QuorumPeerMain"])
                .arg(dir.join("zoo.cfg"));
            command
        })
        .probe(|probe| mode(probe.port).is_some());
        ZookeeperServer { process: ServerProcess::start(spec) }
    }

    /// The store URL, such as `zk://127.0.0.1:40123`.
    pub fn url(&self) -> String {
        format!("zk://127.0.0.1:{}", self.port())
    }

    /// The client port on the loopback interface, the same across restarts.
    pub fn port(&self) -> u16 {
        self.process.port()
    }

    /// The server process: kill, pause, resume or restart it there. Restarted, it reloads its
    /// snapshot and transaction log: zxids go on from where they were.
    pub fn process(&self) -> &ServerProcess {
        &self.process
    }

    /// `leader`, `follower` or `standalone` while it serves, `None` otherwise.
    pub fn mode(&self) -> Option<String> {
        mode(self.port())
    }
}

/// Three ZooKeeper servers forming one ensemble on loopback.
pub struct ZookeeperEnsemble {
    /// The members, in the order of their ids.
    pub members: Vec<ZookeeperServer>,
}

impl ZookeeperEnsemble {
    /// Starts three members at once and waits until they elected a leader.
    pub fn start() -> ZookeeperEnsemble {
        let peers: Vec<(u16, u16)> = (0..3).map(|_| (free_port(), free_port())).collect();
        let members = std::thread::scope(|scope| {
            let started: Vec<_> = (1..=3)
                .map(|id| {
                    let peers = peers.clone();
                    scope.spawn(move || ZookeeperServer::launch(Some((id, peers)), false))
                })
                .collect();
            started.into_iter().map(|member| member.join().expect("member started")).collect()
        });
        let ensemble = ZookeeperEnsemble { members };
        ensemble.wait_for_leader(&[]);
        ensemble
    }

    /// The URL listing every member.
    pub fn url(&self) -> String {
        let hosts: Vec<String> =
            self.members.iter().map(|m| format!("127.0.0.1:{}", m.port())).collect();
        format!("zk://{}", hosts.join(","))
    }

    /// The index of the member that leads now, if one does.
    pub fn leader(&self) -> Option<usize> {
        self.members.iter().position(|m| m.mode().as_deref() == Some("leader"))
    }

    /// Waits until a member other than those in `except` leads and a majority serves; answers
    /// its index. Panics after a minute.
    pub fn wait_for_leader(&self, except: &[usize]) -> usize {
        let deadline = Instant::now() + SETTLE;
        loop {
            let serving = self.members.iter().filter(|m| m.mode().is_some()).count();
            if let Some(leader) = self.leader().filter(|l| !except.contains(l))
                && serving >= 2
            {
                return leader;
            }
            assert!(Instant::now() < deadline, "the ZooKeeper ensemble elected no leader");
            std::thread::sleep(Duration::from_millis(20));
        }
    }
}

fn write_config(
    dir: &Path,
    port: u16,
    member: Option<&(usize, Vec<(u16, u16)>)>,
) -> std::io::Result<()> {
    let data = dir.join("data");
    std::fs::create_dir_all(&data)?;
    let mut config = format!(
        "tickTime={TICK_MS}\ninitLimit=25\nsyncLimit=10\ndataDir={}\nclientPort={port}\n\
         clientPortAddress=127.0.0.1\nadmin.enableServer=false\nmaxSessionTimeout=60000\n\
         4lw.commands.whitelist=srvr\nreconfigEnabled=false\n",
        data.display()
    );
    if let Some((id, peers)) = member {
        std::fs::write(data.join("myid"), format!("{id}\n"))?;
        for (n, (quorum, election)) in peers.iter().enumerate() {
            config.push_str(&format!("server.{}=127.0.0.1:{quorum}:{election}\n", n + 1));
        }
    }
    std::fs::write(dir.join("zoo.cfg"), config)
}

/// The `Mode:` a server reports to `srvr` while it serves requests.
fn mode(port: u16) -> Option<String> {
    let addr = SocketAddr::from((Ipv4Addr::LOCALHOST, port));
    let mut stream = TcpStream::connect_timeout(&addr, Duration::from_millis(200)).ok()?;
    stream.set_read_timeout(Some(Duration::from_millis(500))).ok()?;
    stream.write_all(b"srvr").ok()?;
    let mut answer = String::new();
    stream.read_to_string(&mut answer).ok()?;
    answer.lines().find_map(|line| line.strip_prefix("Mode: ")).map(|m| m.trim().to_string())
}

/// `java` from the PATH, once the package's jar is known to be there.
fn java() -> std::path::PathBuf {
    let path = std::env::var_os("PATH").unwrap_or_default();
    std::env::split_paths(&path)
        .map(|dir| dir.join("java"))
        .find(|candidate| candidate.is_file() && Path::new(JAR).is_file())
        .unwrap_or_else(|| panic!("{NOT_FOUND}"))
}
