//! Real MCP servers (Node) on free loopback ports, killed when dropped.

use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

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
}

pub struct TestServer {
    kind: Kind,
    port: u16,
    child: Child,
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
        Self::start_on(kind, free_port())
    }

    fn start_on(kind: Kind, port: u16) -> TestServer {
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
        };
        let mut command = Command::new(node);
        command
            .arg("--import")
            .arg(url_of_file(&loopback))
            .arg(&script)
            .args(&args)
            .current_dir(tests_dir())
            .env("PORT", port.to_string())
            .env("GEMIPANEL_TEST_PORT", port.to_string())
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null());
        let child = command.spawn().expect("node starts");
        let server = TestServer { kind, port, child };
        server.wait_until_listening();
        server
    }

    pub fn url(&self) -> String {
        let path = if self.kind == Kind::EverythingLegacySse { "sse" } else { "mcp" };
        format!("http://127.0.0.1:{}/{path}", self.port)
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

    fn wait_until_listening(&self) {
        let deadline = Instant::now() + Duration::from_secs(15);
        while Instant::now() < deadline {
            if TcpStream::connect(("127.0.0.1", self.port)).is_ok() {
                return;
            }
            std::thread::sleep(Duration::from_millis(25));
        }
        panic!("{:?} did not listen on port {} within 15 s", self.kind, self.port);
    }
}

fn url_of_file(path: &Path) -> String {
    format!("file://{}", path.display())
}

impl Drop for TestServer {
    fn drop(&mut self) {
        self.kill();
    }
}
