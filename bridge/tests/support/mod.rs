//! Drives the real `gemipanel-bridge` binary as Chrome does: started with an origin, spoken to
//! in 32-bit native-endian length-prefixed JSON on its stdin and stdout. What it sends back is
//! joined with core's `Reassembler`, as the worker will join it.
//!
//! Every bridge runs with its own temporary home and configuration folder. Dropping a `Bridge`
//! closes its stdin, waits for it to exit (it then ends every server it ran) and kills it if
//! it does not.

#![allow(dead_code)] // each test file uses a different part

use std::cell::RefCell;
use std::collections::VecDeque;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, ExitStatus, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use gemipanel_core::native::chunk::Reassembler;
use gemipanel_core::native::run_line::RunLine;
use gemipanel_core::native::wire::{FromBridge, ServerSpec, ToBridge};
use gemipanel_core::native::EXTENSION_ID;
use serde_json::{json, Value};

pub const WAIT: Duration = Duration::from_secs(30);

/// A server's process as `started` named it: its generation, and the pid a test signals.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Running {
    pub generation: u64,
    pub pid: u32,
}

pub fn bridge_binary() -> &'static Path {
    Path::new(env!("CARGO_BIN_EXE_gemipanel-bridge"))
}

pub fn tests_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests")
}

pub fn pinned_origin() -> String {
    format!("chrome-extension://{EXTENSION_ID}/")
}

pub struct Bridge {
    child: Child,
    stdin: Option<ChildStdin>,
    messages: Receiver<FromBridge>,
    /// Messages `recv_until` passed over, still to be read.
    backlog: RefCell<VecDeque<FromBridge>>,
    pub stderr: Arc<Mutex<String>>,
    /// The largest frame the bridge wrote, and how many it wrote.
    pub largest_frame: Arc<AtomicUsize>,
    pub frames: Arc<AtomicUsize>,
    /// The temporary home it made, when it was not given one.
    _home: Option<tempfile::TempDir>,
    next_resolve: u64,
}

impl Bridge {
    pub fn start() -> Bridge {
        Bridge::start_with(&pinned_origin(), &[], None)
    }

    /// A bridge for `origin` with extra environment, in `home` (a fresh one when `None`).
    pub fn start_with(origin: &str, env: &[(&str, &str)], home: Option<&Path>) -> Bridge {
        let made = match home {
            Some(_) => None,
            None => Some(tempfile::tempdir().expect("a temporary folder")),
        };
        let home = home.or(made.as_ref().map(|d| d.path())).expect("a home");
        let mut child = Command::new(bridge_binary())
            .arg(origin)
            .env("HOME", home)
            .env("XDG_CONFIG_HOME", home.join(".config"))
            .envs(env.iter().copied())
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("the bridge starts");
        let stdout = child.stdout.take().expect("piped");
        let mut stderr_pipe = child.stderr.take().expect("piped");
        let stderr = Arc::new(Mutex::new(String::new()));
        let kept = stderr.clone();
        std::thread::spawn(move || {
            let mut text = String::new();
            let _ = stderr_pipe.read_to_string(&mut text);
            kept.lock().unwrap().push_str(&text);
        });
        let (tx, messages) = mpsc::channel();
        let largest_frame = Arc::new(AtomicUsize::new(0));
        let frames = Arc::new(AtomicUsize::new(0));
        let (largest, count) = (largest_frame.clone(), frames.clone());
        std::thread::spawn(move || read_frames(stdout, tx, largest, count));
        Bridge {
            stdin: child.stdin.take(),
            child,
            messages,
            backlog: RefCell::default(),
            stderr,
            largest_frame,
            frames,
            _home: made,
            next_resolve: 1,
        }
    }

    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    pub fn send(&mut self, message: &ToBridge) {
        let text = serde_json::to_vec(message).unwrap();
        self.write(&frame(&text));
    }

    pub fn write(&mut self, bytes: &[u8]) {
        let stdin = self.stdin.as_mut().expect("stdin is open");
        stdin.write_all(bytes).expect("the bridge reads its stdin");
        stdin.flush().unwrap();
    }

    /// The next message, or a panic naming what the bridge wrote to stderr.
    pub fn recv(&self) -> FromBridge {
        self.recv_within(WAIT)
    }

    pub fn recv_within(&self, wait: Duration) -> FromBridge {
        if let Some(message) = self.backlog.borrow_mut().pop_front() {
            return message;
        }
        match self.messages.recv_timeout(wait) {
            Ok(message) => message,
            Err(RecvTimeoutError::Timeout) => {
                panic!("nothing from the bridge in {wait:?}; {}", self.context())
            }
            Err(RecvTimeoutError::Disconnected) => {
                panic!("the bridge closed its output; {}", self.context())
            }
        }
    }

    /// Nothing comes from the bridge itself for `wait`: only what servers say on their own
    /// (a server may announce a list change whenever it likes).
    pub fn expect_silence(&self, wait: Duration) {
        let said_by_server = |m: &FromBridge| matches!(m, FromBridge::Message { message, .. } if message.get("id").is_none());
        if let Some(message) = self.backlog.borrow().iter().find(|m| !said_by_server(m)) {
            panic!("unexpected message {message:?}");
        }
        let deadline = Instant::now() + wait;
        while let Some(left) = deadline.checked_duration_since(Instant::now()) {
            match self.messages.recv_timeout(left) {
                Ok(message) if said_by_server(&message) => {}
                Ok(message) => panic!("unexpected message {message:?}"),
                Err(_) => return,
            }
        }
    }

    /// The first message `wanted` picks, from those passed over earlier and then new ones;
    /// the others are kept, in order, for later calls (replies of different servers may come
    /// in any order).
    pub fn recv_until<T>(&self, mut wanted: impl FnMut(&FromBridge) -> Option<T>) -> T {
        let mut backlog = self.backlog.borrow_mut();
        for at in 0..backlog.len() {
            if let Some(found) = backlog.get(at).and_then(&mut wanted) {
                backlog.remove(at);
                return found;
            }
        }
        let deadline = Instant::now() + WAIT;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            let message = match self.messages.recv_timeout(left.max(Duration::from_millis(1))) {
                Ok(message) => message,
                Err(_) => panic!(
                    "the awaited message did not come in {WAIT:?}; passed over: {backlog:?}; {}",
                    self.context()
                ),
            };
            if let Some(found) = wanted(&message) {
                return found;
            }
            backlog.push_back(message);
        }
    }

    /// The response to JSON-RPC request `id` from `server`.
    pub fn response(&self, server: &str, id: &Value) -> Value {
        self.recv_until(|m| match m {
            FromBridge::Message { server: s, message }
                if s == server
                    && message.get("id") == Some(id)
                    && message.get("method").is_none() =>
            {
                Some(message.clone())
            }
            _ => None,
        })
    }

    pub fn request(&mut self, server: &str, id: Value, method: &str, params: Value) {
        let message = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
        self.send(&ToBridge::Send { server: server.into(), generation: None, message });
    }

    /// Sends a request and returns its response.
    pub fn call(&mut self, server: &str, id: Value, method: &str, params: Value) -> Value {
        self.request(server, id.clone(), method, params);
        self.response(server, &id)
    }

    /// Starts `server` as the person would: the line the bridge shows is the one allowed.
    /// Waits for `started`; returns its process.
    pub fn start_server(&mut self, server: &str, spec: ServerSpec) -> Running {
        let confirmed = self.resolve(&spec).fingerprint;
        self.send(&ToBridge::Start { server: server.into(), spec, confirmed });
        self.started(server)
    }

    /// The line as the bridge would run `spec`.
    pub fn resolve(&mut self, spec: &ServerSpec) -> RunLine {
        let id = self.next_resolve;
        self.next_resolve += 1;
        self.send(&ToBridge::Resolve { id, spec: spec.clone() });
        self.recv_until(|m| match m {
            FromBridge::Resolved { id: answered, line } if *answered == id => Some(line.clone()),
            _ => None,
        })
    }

    pub fn started(&self, server: &str) -> Running {
        self.recv_until(|m| match m {
            FromBridge::Started { server: s, generation, pid, .. } if s == server => {
                Some(Running { generation: *generation, pid: *pid })
            }
            FromBridge::Error { server: Some(s), error } if s == server => {
                panic!("{server}: {error}")
            }
            _ => None,
        })
    }

    /// The MCP handshake with `server`; returns the `initialize` result.
    pub fn initialize(&mut self, server: &str) -> Value {
        let response =
            self.call(server, json!(format!("init-{server}")), "initialize", initialize_params());
        self.send(&ToBridge::Send {
            server: server.into(),
            generation: None,
            message: json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
        });
        response["result"].clone()
    }

    pub fn close_stdin(&mut self) {
        self.stdin = None;
    }

    pub fn wait_exit(&mut self, wait: Duration) -> Option<ExitStatus> {
        let deadline = Instant::now() + wait;
        while Instant::now() < deadline {
            if let Ok(Some(status)) = self.child.try_wait() {
                return Some(status);
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        None
    }

    fn context(&self) -> String {
        format!("its stderr: {:?}", self.stderr.lock().unwrap())
    }
}

impl Drop for Bridge {
    fn drop(&mut self) {
        self.close_stdin();
        if self.wait_exit(Duration::from_secs(5)).is_none() {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }
}

pub fn initialize_params() -> Value {
    json!({
        "protocolVersion": "2025-06-18",
        "capabilities": {},
        "clientInfo": {"name": "gemipanel-bridge-tests", "version": "0"}
    })
}

pub fn frame(body: &[u8]) -> Vec<u8> {
    let mut bytes = (body.len() as u32).to_ne_bytes().to_vec();
    bytes.extend_from_slice(body);
    bytes
}

fn read_frames(
    mut stdout: impl Read,
    messages: mpsc::Sender<FromBridge>,
    largest: Arc<AtomicUsize>,
    count: Arc<AtomicUsize>,
) {
    let mut joiner = Reassembler::new(64 << 20, 4);
    loop {
        let mut length = [0; 4];
        if stdout.read_exact(&mut length).is_err() {
            return;
        }
        let length = u32::from_ne_bytes(length) as usize;
        largest.fetch_max(length, Ordering::SeqCst);
        count.fetch_add(1, Ordering::SeqCst);
        let mut body = vec![0; length];
        if stdout.read_exact(&mut body).is_err() {
            return;
        }
        let message: FromBridge = match serde_json::from_slice(&body) {
            Ok(message) => message,
            Err(e) => panic!(
                "the bridge wrote a frame that is not a message ({e}): {}",
                String::from_utf8_lossy(&body)
            ),
        };
        match joiner.receive(message) {
            Ok(Some(whole)) => {
                if messages.send(whole).is_err() {
                    return;
                }
            }
            Ok(None) => {}
            Err(e) => panic!("chunks from the bridge did not join: {e}"),
        }
    }
}

fn node() -> String {
    tests_dir().join("node_modules/.bin/node").display().to_string()
}

fn in_modules(path: &str) -> String {
    tests_dir().join("node_modules").join(path).display().to_string()
}

pub fn spec(command: &str, args: &[&str]) -> ServerSpec {
    ServerSpec {
        command: command.into(),
        args: args.iter().map(|a| (*a).to_owned()).collect(),
        env: Default::default(),
        cwd: None,
    }
}

/// `@modelcontextprotocol/server-everything` in stdio mode.
pub fn everything() -> ServerSpec {
    spec(&node(), &[&in_modules("@modelcontextprotocol/server-everything/dist/index.js"), "stdio"])
}

/// `@modelcontextprotocol/server-filesystem` serving `dir`.
pub fn filesystem(dir: &Path) -> ServerSpec {
    let dir = dir.display().to_string();
    spec(&node(), &[&in_modules("@modelcontextprotocol/server-filesystem/dist/index.js"), &dir])
}

/// PyPI's `mcp-server-time`, installed by `cargo xtask setup` into tests/.venv.
pub fn time() -> ServerSpec {
    let program = tests_dir().join(".venv/bin/mcp-server-time");
    assert!(program.exists(), "{} is missing: run `cargo xtask setup`", program.display());
    spec(&program.display().to_string(), &["--local-timezone", "UTC"])
}

/// `shell` run by `sh -c`, then server-everything in its place (same pid, same group).
pub fn everything_after(shell: &str) -> ServerSpec {
    let everything = everything();
    let script = format!("{shell}; exec \"$0\" \"$@\"");
    let mut args = vec!["-c".to_owned(), script, everything.command];
    args.extend(everything.args);
    ServerSpec { command: "sh".into(), args, env: Default::default(), cwd: None }
}

/// Whether a process with this pid still exists (a zombie counts as gone).
pub fn is_alive(pid: u32) -> bool {
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        Ok(stat) => !stat.rsplit(')').next().is_some_and(|rest| rest.trim_start().starts_with('Z')),
        Err(_) => false,
    }
}

/// Waits until none of `pids` is alive.
pub fn wait_gone(pids: &[u32], wait: Duration) -> Vec<u32> {
    let deadline = Instant::now() + wait;
    loop {
        let alive: Vec<u32> = pids.iter().copied().filter(|&p| is_alive(p)).collect();
        if alive.is_empty() || Instant::now() >= deadline {
            return alive;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// The text of the first content block of a `tools/call` response.
pub fn tool_text(response: &Value) -> &str {
    response["result"]["content"][0]["text"]
        .as_str()
        .unwrap_or_else(|| panic!("no text in {response}"))
}
