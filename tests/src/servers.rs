//! Real MCP servers (Node) on free loopback ports, killed when dropped.
//!
//! A server counts as started when it says so on stderr (see `fixtures/mcp/loopback.mjs`), not
//! when something answers on its port: two tests can draw the same free port, and a probe would
//! then find the other test's server. A server that finds its port taken is started again on
//! another one. Its stderr is kept and printed when a test panics while the server runs.

use std::io::{BufRead, BufReader};
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStderr, Command, Stdio};
use std::sync::mpsc;
use std::sync::{Arc, Mutex};
use std::time::Duration;

const LISTENING: &str = "gemipanel-test-server: listening";
const PORT_TAKEN: &str = "gemipanel-test-server: port taken";
const START_TIMEOUT: Duration = Duration::from_secs(15);

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// `@modelcontextprotocol/server-everything`: stateful sessions, SSE replies.
    Everything,
    /// The same server on the deprecated HTTP+SSE transport of 2024-11-05 (GET `/sse`).
    EverythingLegacySse,
    /// The TypeScript SDK example with plain `application/json` replies.
    SdkJson,
    /// The TypeScript SDK example with SSE replies and sessions.
    SdkSse,
    /// Our fixture on the v2 SDK: stateless protocol 2026-07-28.
    Stateless2026,
    /// The TypeScript SDK example with `--oauth`: its MCP server demands a bearer token and
    /// its authorization server (on a second port) registers clients and approves at once.
    SdkOAuth,
    /// `oidc-provider` (an OpenID-certified authorization server, on a second port) in front of
    /// a test MCP server on the official SDK that checks its JWT access tokens
    /// (`fixtures/oidc/server.mjs`).
    Oidc(Oidc),
}

/// How the `oidc-provider` fixture runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Oidc {
    /// The access tokens' lifetime in seconds.
    pub access_token_ttl: u32,
    /// An account that approves every sign-in with no page; `None`: the login and consent pages
    /// are shown and must be filled.
    pub auto_approve: Option<&'static str>,
    /// DPoP (RFC 9449) at both servers: `on` (oidc-provider's default), `nonce` (both also
    /// demand their nonce in every proof) or `off`.
    pub dpop: &'static str,
}

impl Default for Oidc {
    fn default() -> Self {
        Oidc { access_token_ttl: 3600, auto_approve: None, dpop: "on" }
    }
}

pub struct TestServer {
    kind: Kind,
    port: u16,
    /// The authorization server's port, for the kinds that have one.
    auth_port: Option<u16>,
    child: Child,
    log: Arc<Mutex<String>>,
}

/// How a start attempt ended.
enum Start {
    Listening,
    PortTaken,
    Failed(String),
}

fn tests_dir() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .expect("a free loopback port")
}

impl TestServer {
    pub fn start(kind: Kind) -> TestServer {
        for _ in 0..5 {
            if let Some(server) = Self::try_start_on(kind, free_port()) {
                return server;
            }
        }
        panic!("{kind:?}: five free ports in a row were taken before the server could listen");
    }

    /// On a port just freed by `kill` another test's server may be faster: then it must wait.
    fn start_on(kind: Kind, port: u16) -> TestServer {
        for _ in 0..40 {
            if let Some(server) = Self::try_start_on(kind, port) {
                return server;
            }
            std::thread::sleep(Duration::from_millis(250));
        }
        panic!("{kind:?}: port {port} stayed taken for 10 s");
    }

    /// The started server, or `None` when its port was taken.
    fn try_start_on(kind: Kind, port: u16) -> Option<TestServer> {
        let modules = tests_dir().join("node_modules");
        let node = modules.join(".bin/node");
        assert!(node.exists(), "Node is missing: run `npm ci` in tests/ ({})", node.display());
        let loopback = tests_dir().join("fixtures/mcp/loopback.mjs");
        let examples = modules.join("@modelcontextprotocol/sdk/dist/esm/examples/server");
        let (script, args): (PathBuf, Vec<String>) = match kind {
            Kind::Everything => (
                modules.join("@modelcontextprotocol/server-everything/dist/index.js"),
                vec!["streamableHttp".into()],
            ),
            Kind::EverythingLegacySse => (
                modules.join("@modelcontextprotocol/server-everything/dist/index.js"),
                vec!["sse".into()],
            ),
            Kind::SdkJson => (examples.join("jsonResponseStreamableHttp.js"), vec![]),
            Kind::SdkSse => (examples.join("simpleStreamableHttp.js"), vec![]),
            Kind::Stateless2026 => {
                (tests_dir().join("fixtures/mcp/stateless-2026.mjs"), vec![port.to_string()])
            }
            Kind::SdkOAuth => (examples.join("simpleStreamableHttp.js"), vec!["--oauth".into()]),
            Kind::Oidc(_) => (tests_dir().join("fixtures/oidc/server.mjs"), vec![]),
        };
        let mut command = Command::new(node);
        command
            .arg("--import")
            .arg(url_of_file(&loopback))
            .arg(&script)
            .args(&args)
            .current_dir(tests_dir())
            .env("PORT", port.to_string());
        // Two servers: the MCP one on the chosen port, its authorization server on another.
        let auth_port = matches!(kind, Kind::SdkOAuth | Kind::Oidc(_)).then(free_port);
        match (kind, auth_port) {
            (Kind::SdkOAuth, Some(auth_port)) => {
                command.env("MCP_AUTH_PORT", auth_port.to_string());
            }
            (Kind::Oidc(oidc), Some(auth_port)) => {
                command
                    .env("OIDC_PORT", auth_port.to_string())
                    .env("OIDC_ACCESS_TOKEN_TTL", oidc.access_token_ttl.to_string())
                    .env("OIDC_DPOP", oidc.dpop);
                if let Some(account) = oidc.auto_approve {
                    command.env("OIDC_AUTO_APPROVE", account);
                }
            }
            _ => {}
        }
        if auth_port.is_some() {
            command.env("MCP_PORT", port.to_string()).env("GEMIPANEL_TEST_LISTENS", "2");
        } else {
            command.env("GEMIPANEL_TEST_PORT", port.to_string());
        }
        command.stdin(Stdio::null()).stdout(Stdio::null()).stderr(Stdio::piped());
        let mut child = command.spawn().expect("node starts");
        let log = Arc::new(Mutex::new(String::new()));
        let started = keep_log(child.stderr.take().expect("stderr is piped"), log.clone());
        let mut server = TestServer { kind, port, auth_port, child, log };
        match started.recv_timeout(START_TIMEOUT) {
            Ok(Start::Listening) => Some(server),
            Ok(Start::PortTaken) => {
                server.kill();
                None
            }
            Ok(Start::Failed(why)) => panic!("{kind:?} did not start on port {port}: {why}"),
            Err(_) => panic!("{kind:?} did not listen on port {port} within {START_TIMEOUT:?}"),
        }
    }

    pub fn url(&self) -> String {
        let path = if self.kind == Kind::EverythingLegacySse { "sse" } else { "mcp" };
        // The OAuth example names itself `localhost` in its metadata: the resource must match.
        let host = if self.kind == Kind::SdkOAuth { "localhost" } else { "127.0.0.1" };
        format!("http://{host}:{}/{path}", self.port)
    }

    /// The `oidc-provider` fixture's issuer (`None` for the other kinds).
    pub fn issuer(&self) -> Option<String> {
        let port = self.auth_port.filter(|_| matches!(self.kind, Kind::Oidc(_)))?;
        Some(format!("http://127.0.0.1:{port}"))
    }

    /// Kills the server; with `restart` a fresh process takes the same port (sessions are lost).
    pub fn kill(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }

    pub fn restart(&mut self) {
        self.kill();
        *self = Self::start_on(self.kind, self.port);
    }
}

/// Reads the server's stderr into `log` for as long as it runs, telling once how it started.
fn keep_log(stderr: ChildStderr, log: Arc<Mutex<String>>) -> mpsc::Receiver<Start> {
    let (tell, started) = mpsc::channel();
    std::thread::spawn(move || {
        let mut told = false;
        for line in BufReader::new(stderr).lines().map_while(Result::ok) {
            if !told && line.starts_with(LISTENING) {
                told = tell.send(Start::Listening).is_ok();
            } else if !told && line.starts_with(PORT_TAKEN) {
                told = tell.send(Start::PortTaken).is_ok();
            }
            let mut log = log.lock().unwrap_or_else(|e| e.into_inner());
            log.push_str(&line);
            log.push('\n');
        }
        if !told {
            let log = log.lock().unwrap_or_else(|e| e.into_inner());
            let _ = tell.send(Start::Failed(format!("it exited; its stderr:\n{log}")));
        }
    });
    started
}

fn url_of_file(path: &Path) -> String {
    format!("file://{}", path.display())
}

impl Drop for TestServer {
    fn drop(&mut self) {
        if std::thread::panicking() {
            let status = self.child.try_wait().ok().flatten();
            let state = status.map_or("running".to_string(), |s| format!("exited ({s})"));
            let log = self.log.lock().unwrap_or_else(|e| e.into_inner());
            eprintln!("{:?} on port {} was {state}; its stderr:\n{log}", self.kind, self.port);
        }
        self.kill();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_taken_port_is_told_apart_from_a_listening_server() {
        let squatter = TcpListener::bind("127.0.0.1:0").expect("a loopback port");
        let port = squatter.local_addr().expect("its address").port();
        assert!(TestServer::try_start_on(Kind::Stateless2026, port).is_none());
        drop(squatter);
        let _server = TestServer::try_start_on(Kind::Stateless2026, port).expect("free now");
        assert!(TcpListener::bind(("127.0.0.1", port)).is_err(), "the server holds the port");
    }
}
