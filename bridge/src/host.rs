//! The native-messaging host: one loop that owns every server, fed by the extension's messages,
//! by the server processes' events and by a clock.
//!
//! Servers are named by the worker. A server's command line is remembered from `start`; its
//! process is started then and again on demand (a `send` to a server that is not running, unless
//! it was meant for a process that ended: that one is never forwarded to another),
//! restarted with backoff when it exits on its own, and stopped when idle. Every process the
//! bridge starts gets the next generation (1, 2, …), which names it on the wire: a pid is given
//! to another process soon after, a generation never while the bridge runs. When the extension
//! disconnects, every server's process group is ended and the bridge exits.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use bytes::Bytes;
use gemipanel_core::jsonrpc::ErrorObject;
use gemipanel_core::native::expand::expand_spec;
use gemipanel_core::native::log_tail::{LogTail, LOG_LIMIT};
use gemipanel_core::native::pending::Pending;
use gemipanel_core::native::restart::Backoff;
use gemipanel_core::native::run_line::RunLine;
use gemipanel_core::native::wire::{
    BridgeError, Exit, ExitReason, FromBridge, ServerSpec, ToBridge,
};
use gemipanel_core::native::PROTOCOL_VERSION;
use serde_json::{json, Value};
use tokio::sync::mpsc;
use tokio::time::Instant;

use crate::frames::{self, Incoming};
use crate::server::{self, Process, ProcessEvent};
use crate::{config, origin};

/// A server with no traffic either way and no unanswered request for this long is stopped.
const IDLE_AFTER: Duration = Duration::from_secs(10 * 60);
/// Tests shorten the idle time with this variable (milliseconds).
const IDLE_VARIABLE: &str = "GEMIPANEL_BRIDGE_IDLE_MS";
/// After the SIGKILL of shutdown, how long processes get to be reported reaped (stdout drained).
const SHUTDOWN_REAP: Duration = Duration::from_secs(1);
/// The JSON-RPC error code of a request whose server ended before answering (the
/// implementation-defined server error range).
const SERVER_ENDED: i64 = -32000;
/// Lines of stderr shown with an exit.
const TAIL_LINES: usize = 20;
const TAIL_BYTES: usize = 4096;

pub enum Event {
    Process(u64, ProcessEvent),
    RestartDue { server: String, token: u64 },
}

pub fn run(origin: &str) -> Result<(), String> {
    let extra = config::load().unwrap_or_else(|e| {
        eprintln!("gemipanel-bridge: {e}; only the pinned extension is allowed");
        config::Config::default()
    });
    let allowed = origin::allowed_ids(&extra.extension_ids);
    let idle_after = std::env::var(IDLE_VARIABLE)
        .ok()
        .and_then(|ms| ms.parse().ok())
        .map_or(IDLE_AFTER, Duration::from_millis);
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| format!("cannot start: {e}"))?;
    let result = runtime.block_on(serve(origin, &allowed, idle_after));
    // A blocking read of stdin cannot be cancelled: do not wait for it.
    runtime.shutdown_timeout(Duration::from_millis(100));
    result
}

async fn serve(origin: &str, allowed: &[String], idle_after: Duration) -> Result<(), String> {
    let (out, out_rx) = mpsc::channel(256);
    let writer = tokio::spawn(frames::write_all(tokio::io::stdout(), out_rx));
    if !origin::is_allowed(origin, allowed) {
        let error = BridgeError::OriginRefused { origin: origin.to_owned() };
        let _ = out.send(FromBridge::Error { server: None, error: error.clone() }).await;
        drop(out);
        let _ = writer.await;
        return Err(error.to_string());
    }
    let (chrome_tx, mut chrome) = mpsc::channel(64);
    tokio::spawn(frames::read_all(tokio::io::stdin(), chrome_tx));
    let (events_tx, mut events) = mpsc::channel(256);
    let mut host = Host {
        servers: HashMap::new(),
        processes: HashMap::new(),
        out,
        events: events_tx,
        next_generation: 1,
        idle_after,
        started: Instant::now(),
    };
    let mut idle_check = tokio::time::interval(
        (idle_after / 4).clamp(Duration::from_millis(20), Duration::from_secs(30)),
    );
    loop {
        tokio::select! {
            incoming = chrome.recv() => match incoming {
                Some(Incoming::Request(request)) => host.request(request).await,
                Some(Incoming::Unreadable(error)) => host.emit(FromBridge::Error { server: None, error }).await,
                Some(Incoming::Closed(error)) => {
                    if let Some(error) = error {
                        eprintln!("gemipanel-bridge: {error}");
                    }
                    break;
                }
                None => break,
            },
            Some(event) = events.recv() => host.event(event).await,
            _ = idle_check.tick() => host.stop_idle().await,
        }
    }
    host.shutdown(&mut events).await;
    drop(host);
    let _ = tokio::time::timeout(Duration::from_secs(1), writer).await;
    Ok(())
}

/// The line as this bridge would run `spec`: expanded from its environment, with the variables
/// that change what runs which the server inherits from it. The environment is the bridge's
/// own, the same for its whole life, so a line checked at `start` is the line each restart runs.
fn resolve(spec: &ServerSpec) -> RunLine {
    // Names or values that are not UTF-8 cannot be expanded into a line either.
    let environment: Vec<(String, String)> = std::env::vars_os()
        .filter_map(|(name, value)| Some((name.into_string().ok()?, value.into_string().ok()?)))
        .collect();
    RunLine::resolved(spec, &|variable| std::env::var(variable).ok(), &environment)
}

struct Host {
    servers: HashMap<String, Server>,
    /// Running processes by generation; a replaced or forgotten server's process stays here
    /// until it has exited.
    processes: HashMap<u64, Proc>,
    out: mpsc::Sender<FromBridge>,
    events: mpsc::Sender<Event>,
    next_generation: u64,
    idle_after: Duration,
    started: Instant,
}

struct Server {
    spec: ServerSpec,
    /// The generation of its running process.
    current: Option<u64>,
    backoff: Backoff,
    pending: Pending,
    log: Arc<Mutex<LogTail>>,
    last_activity: Instant,
    restarts: u32,
    /// Set while a restart is scheduled; a start in between makes it stale.
    restart_token: Option<u64>,
}

struct Proc {
    server: String,
    process: Process,
    /// Why the bridge ended it, when it did.
    reason: Option<ExitReason>,
}

impl Host {
    async fn emit(&self, message: FromBridge) {
        // A closed output means the extension is gone; the input's end follows.
        let _ = self.out.send(message).await;
    }

    async fn error(&self, server: &str, error: BridgeError) {
        self.emit(FromBridge::Error { server: Some(server.to_owned()), error }).await;
    }

    fn now_ms(&self) -> u64 {
        u64::try_from(self.started.elapsed().as_millis()).unwrap_or(u64::MAX)
    }

    async fn request(&mut self, request: ToBridge) {
        match request {
            ToBridge::Hello { protocol } => {
                self.emit(FromBridge::Hello {
                    version: env!("CARGO_PKG_VERSION").to_owned(),
                    protocol: PROTOCOL_VERSION,
                })
                .await;
                if protocol != PROTOCOL_VERSION {
                    let error = BridgeError::ProtocolMismatch {
                        bridge: PROTOCOL_VERSION,
                        worker: protocol,
                    };
                    self.emit(FromBridge::Error { server: None, error }).await;
                }
            }
            ToBridge::Start { server, spec, confirmed } => {
                let line = resolve(&spec);
                if line.fingerprint == confirmed {
                    self.start(server, spec).await;
                } else {
                    // Not what the person allowed: they see this line, and nothing changes.
                    let error = BridgeError::NotConfirmed { line: Box::new(line) };
                    self.error(&server, error).await;
                }
            }
            ToBridge::Resolve { id, spec } => {
                self.emit(FromBridge::Resolved { id, line: resolve(&spec) }).await
            }
            ToBridge::Send { server, generation, message } => {
                self.send(server, generation, message).await
            }
            ToBridge::Stop { server } => {
                if self.servers.contains_key(&server) {
                    self.stop(&server, ExitReason::Stopped).await;
                    self.servers.remove(&server);
                } else {
                    self.error(&server, BridgeError::UnknownServer).await;
                }
            }
            ToBridge::Log { server } => {
                let log = self.servers.get(&server).map(|s| {
                    s.log.lock().map(|log| (log.text(), log.truncated())).unwrap_or_default()
                });
                match log {
                    Some((text, truncated)) => {
                        self.emit(FromBridge::Log { server, text, truncated }).await
                    }
                    None => self.error(&server, BridgeError::UnknownServer).await,
                }
            }
        }
    }

    async fn start(&mut self, name: String, spec: ServerSpec) {
        match self.servers.get_mut(&name) {
            Some(server) if server.spec == spec => {
                server.backoff.reset();
                let running = server.current.and_then(|g| self.processes.get(&g).map(|p| (g, p)));
                if let Some((generation, proc)) = running {
                    let started = FromBridge::Started {
                        server: name,
                        generation,
                        pid: proc.process.pid,
                        restarts: server.restarts,
                    };
                    self.emit(started).await;
                    return;
                }
            }
            Some(_) => {
                self.stop(&name, ExitReason::Stopped).await;
                if let Some(server) = self.servers.get_mut(&name) {
                    server.spec = spec;
                    server.restarts = 0;
                    server.backoff.reset();
                }
            }
            None => {
                let server = Server {
                    spec,
                    current: None,
                    backoff: Backoff::default(),
                    pending: Pending::default(),
                    log: Arc::new(Mutex::new(LogTail::new(LOG_LIMIT))),
                    last_activity: Instant::now(),
                    restarts: 0,
                    restart_token: None,
                };
                self.servers.insert(name.clone(), server);
            }
        }
        self.launch(&name).await;
    }

    /// Starts the server's process; false (and the error reported) when it cannot start.
    async fn launch(&mut self, name: &str) -> bool {
        let generation = self.next_generation;
        self.next_generation += 1;
        let now_ms = self.now_ms();
        let Some(server) = self.servers.get_mut(name) else { return false };
        let expanded = expand_spec(&server.spec, &|variable| std::env::var(variable).ok());
        server.restart_token = None;
        match server::spawn(generation, &expanded, server.log.clone(), self.events.clone()) {
            Ok(process) => {
                let pid = process.pid;
                server.current = Some(generation);
                server.backoff.started(now_ms);
                server.last_activity = Instant::now();
                let restarts = server.restarts;
                let proc = Proc { server: name.to_owned(), process, reason: None };
                self.processes.insert(generation, proc);
                let server = name.to_owned();
                self.emit(FromBridge::Started { server, generation, pid, restarts }).await;
                true
            }
            Err(message) => {
                // The command as configured: the expanded one may hold a secret.
                let command = server.spec.command.clone();
                self.error(name, BridgeError::SpawnFailed { command, message }).await;
                false
            }
        }
    }

    /// Relays `message` to the server's process: to process `meant` only, when it names one.
    async fn send(&mut self, name: String, meant: Option<u64>, message: Value) {
        let running = self
            .servers
            .get(&name)
            .map(|s| s.current.filter(|generation| self.processes.contains_key(generation)));
        if let (Some(meant), Some(running)) = (meant, running) {
            if running != Some(meant) {
                // Its session ended with its process: a successor (running or started for it)
                // would get a message of a session it never had.
                if let (Some(id), true) = (message.get("id"), message.get("method").is_some()) {
                    let error = BridgeError::ProcessGone { generation: meant, id: id.clone() };
                    self.error(&name, error).await;
                }
                return;
            }
        }
        let problem = match running.map(|generation| generation.is_some()) {
            None => {
                self.error(&name, BridgeError::UnknownServer).await;
                Some("no such local server was started")
            }
            Some(false) => {
                if let Some(server) = self.servers.get_mut(&name) {
                    server.backoff.reset();
                }
                // launch reports why it could not.
                (!self.launch(&name).await).then_some("the local server could not be started")
            }
            Some(true) => None,
        };
        if let Some(problem) = problem {
            // Fail the request now rather than leave the worker waiting for its timeout.
            self.fail_now(&name, &message, problem).await;
            return;
        }
        let Some(server) = self.servers.get_mut(&name) else { return };
        let Some(proc) = server.current.and_then(|g| self.processes.get(&g)) else { return };
        let mut line = match serde_json::to_vec(&message) {
            Ok(line) => line,
            Err(e) => {
                let error = BridgeError::BadRequest { message: e.to_string() };
                self.error(&name, error).await;
                return;
            }
        };
        line.push(b'\n');
        server.last_activity = Instant::now();
        match proc.process.send(Bytes::from(line)) {
            Ok(()) => server.pending.note_outgoing(&message),
            Err(error) => {
                self.error(&name, error).await;
                self.fail_now(&name, &message, "the local server is not reading its input").await;
            }
        }
    }

    /// Answers a request that never reached its server with an error response.
    async fn fail_now(&self, name: &str, message: &Value, why: &str) {
        let mut unanswered = Pending::default();
        unanswered.note_outgoing(message);
        for response in unanswered.fail_all(&ErrorObject::new(SERVER_ENDED, why)) {
            self.emit(FromBridge::Message { server: name.to_owned(), message: response }).await;
        }
    }

    /// Ends the server's process for `reason`; its requests fail now, its exit is reported
    /// when it comes.
    async fn stop(&mut self, name: &str, reason: ExitReason) {
        let Some(server) = self.servers.get_mut(name) else { return };
        server.restart_token = None;
        let failed = server.pending.fail_all(&ErrorObject::new(
            SERVER_ENDED,
            "the local server was stopped before it answered",
        ));
        if let Some(proc) = server.current.take().and_then(|g| self.processes.get_mut(&g)) {
            proc.reason = Some(reason);
            proc.process.stop();
        }
        for response in failed {
            self.emit(FromBridge::Message { server: name.to_owned(), message: response }).await;
        }
    }

    async fn stop_idle(&mut self) {
        let idle: Vec<String> = self
            .servers
            .iter()
            .filter(|(_, s)| {
                s.current.is_some()
                    && s.pending.is_empty()
                    && s.last_activity.elapsed() >= self.idle_after
            })
            .map(|(name, _)| name.clone())
            .collect();
        for name in idle {
            self.stop(&name, ExitReason::Idle).await;
        }
    }

    async fn event(&mut self, event: Event) {
        match event {
            Event::Process(generation, ProcessEvent::Line(line)) => {
                let Some(name) = self.processes.get(&generation).map(|p| p.server.clone()) else {
                    return;
                };
                let Some(server) =
                    self.servers.get_mut(&name).filter(|s| s.current == Some(generation))
                else {
                    return; // a line from a process being replaced
                };
                match line {
                    Ok(message) => {
                        server.pending.note_incoming(&message);
                        server.last_activity = Instant::now();
                        self.emit(FromBridge::Message { server: name, message }).await;
                    }
                    Err(error) => self.error(&name, error).await,
                }
            }
            Event::Process(generation, ProcessEvent::Exited { code, signal }) => {
                self.exited(generation, code, signal).await
            }
            Event::RestartDue { server, token } => {
                let due = self
                    .servers
                    .get_mut(&server)
                    .filter(|s| s.restart_token == Some(token) && s.current.is_none());
                if let Some(entry) = due {
                    entry.restarts += 1;
                    self.launch(&server).await;
                }
            }
        }
    }

    async fn exited(&mut self, generation: u64, code: Option<i32>, signal: Option<i32>) {
        let Some(proc) = self.processes.remove(&generation) else { return };
        let stderr_tail = proc
            .process
            .log
            .lock()
            .map(|log| log.last_lines(TAIL_LINES, TAIL_BYTES))
            .unwrap_or_default();
        let now_ms = self.now_ms();
        let current = self.servers.get_mut(&proc.server).filter(|s| s.current == Some(generation));
        let mut failed = Vec::new();
        let exit = match (current, proc.reason) {
            (Some(server), None) => {
                server.current = None;
                let restart_in_ms = server.backoff.exited(now_ms);
                let how = gemipanel_core::native::how_it_ended(code, signal);
                let mut error = ErrorObject::new(
                    SERVER_ENDED,
                    format!("the local server exited ({how}) before it answered"),
                );
                error.data = Some(json!({ "stderr_tail": stderr_tail }));
                failed = server.pending.fail_all(&error);
                if let Some(delay) = restart_in_ms {
                    let token = generation;
                    server.restart_token = Some(token);
                    let events = self.events.clone();
                    let name = proc.server.clone();
                    tokio::spawn(async move {
                        tokio::time::sleep(Duration::from_millis(delay)).await;
                        let _ = events.send(Event::RestartDue { server: name, token }).await;
                    });
                }
                let reason = if code == Some(0) { ExitReason::Exited } else { ExitReason::Crashed };
                Exit { generation, code, signal, reason, restart_in_ms, stderr_tail }
            }
            (current, reason) => {
                if let Some(server) = current {
                    server.current = None;
                }
                let reason = reason.unwrap_or(ExitReason::Stopped);
                Exit { generation, code, signal, reason, restart_in_ms: None, stderr_tail }
            }
        };
        for response in failed {
            self.emit(FromBridge::Message { server: proc.server.clone(), message: response }).await;
        }
        self.emit(FromBridge::Exited { server: proc.server, exit }).await;
    }

    /// The extension is gone: every group gets SIGTERM and a moment, then SIGKILL, each from
    /// its own watcher, which alone knows when its process is reaped (after which its group's
    /// id may be another process's).
    async fn shutdown(&mut self, events: &mut mpsc::Receiver<Event>) {
        for proc in self.processes.values_mut() {
            proc.process.stop_now();
        }
        let deadline = Instant::now() + server::SHUTDOWN_GRACE + SHUTDOWN_REAP;
        while !self.processes.is_empty() {
            match tokio::time::timeout_at(deadline, events.recv()).await {
                Ok(Some(Event::Process(generation, ProcessEvent::Exited { .. }))) => {
                    self.processes.remove(&generation);
                }
                Ok(Some(_)) => {}
                Ok(None) | Err(_) => break,
            }
        }
    }
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;
    use crate::process_group::audit;

    /// When the extension goes, a server that ends on SIGTERM is gone at once, and what it
    /// left in its group, ignoring SIGTERM, is killed before the server is reaped: no group is
    /// signalled once its leader is reaped (its id may then be another process's).
    #[tokio::test]
    async fn shutdown_ends_every_group_and_signals_none_whose_leader_was_reaped() {
        let (out, mut said) = mpsc::channel(256);
        tokio::spawn(async move { while said.recv().await.is_some() {} });
        let (events_tx, mut events) = mpsc::channel(256);
        let mut host = Host {
            servers: HashMap::new(),
            processes: HashMap::new(),
            out,
            events: events_tx,
            next_generation: 1,
            idle_after: IDLE_AFTER,
            started: Instant::now(),
        };
        let script = "(trap '' TERM; exec sleep 300) & echo \"helper $!\" >&2; \
                      trap 'exit 0' TERM; while :; do sleep 0.05; done";
        let spec = ServerSpec {
            command: "sh".into(),
            args: vec!["-c".into(), script.into()],
            env: Default::default(),
            cwd: None,
        };
        host.start("s".into(), spec).await;
        let leader = host.processes.get(&1).expect("generation 1 runs").process.pid;
        let log = host.servers["s"].log.clone();
        let mut helper = None;
        for _ in 0..100 {
            let text = log.lock().map(|l| l.text()).unwrap_or_default();
            helper = text.lines().find_map(|l| l.strip_prefix("helper ")?.trim().parse().ok());
            if helper.is_some() {
                break;
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        let helper: u32 = helper.expect("the helper's pid in the log");
        host.shutdown(&mut events).await;
        assert!(host.processes.is_empty(), "every exit was reported");
        // SIGKILL is delivered at once but acted on when the process next runs: on a busy
        // machine it can still show as running for a moment.
        let mut stat = String::new();
        for _ in 0..100 {
            stat = std::fs::read_to_string(format!("/proc/{helper}/stat")).unwrap_or_default();
            let alive = !stat.is_empty() && !stat.rsplit(')').next().unwrap_or("").contains(" Z ");
            if !alive {
                break;
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        let alive = !stat.is_empty() && !stat.rsplit(')').next().unwrap_or("").contains(" Z ");
        assert!(!alive, "the helper outlived the bridge by 2 s: {stat}");
        let sent = audit::sent_to(leader);
        assert!(sent.iter().any(|s| s.signal == 9), "the group was killed: {sent:?}");
        assert!(sent.iter().all(|s| !s.leader_reaped), "a reaped group was signalled: {sent:?}");
    }
}
