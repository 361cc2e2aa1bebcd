//! The worker's end of the bridge: one connection (Chrome's native port) shared by every local
//! server, and each local server seen by the MCP client as a Streamable HTTP endpoint.
//!
//! The client speaks to local servers with the same code as to remote ones, through
//! [`LocalTransport`], an [`HttpTransport`] answered from the bridge: a POSTed request gets an
//! SSE reply carrying what is routed to it (its response, progress under its token), a
//! notification or response gets 202, and the GET stream carries everything else the server says
//! (its own requests, list changes), queued while no GET is open. A process is a session: the
//! session id names the process, so after a restart the old session answers 404 and the client
//! initializes again, exactly as with a remote server that forgot its session. A message of a
//! session names its process to the bridge, which never hands it to a successor: a request sent
//! before the worker learned of the exit gets `process_gone`, which is its 404.
//!
//! A process is named by the generation the bridge gave it (never by its pid, which the system
//! hands out again), and a session id by that generation, the connection it came on (each
//! connection is a new bridge, counting from 1 again) and a seed the host draws at random (a
//! worker that Chrome restarted finds its sessions in `chrome.storage.session`, but never the
//! bridge that made them).
//!
//! The host drives [`Bridge`]: it supplies `connect` (which opens the port), and feeds back each
//! message the port receives ([`Bridge::receive`]) and its end ([`Bridge::disconnected`]).

use std::cell::RefCell;
use std::collections::VecDeque;
use std::future::poll_fn;
use std::pin::Pin;
use std::rc::Rc;

use futures_channel::mpsc::{unbounded, UnboundedReceiver, UnboundedSender};
use futures_channel::oneshot;
use futures_core::Stream;
use serde_json::Value;

use super::chunk::Reassembler;
use super::run_line::RunLine;
use super::wire::{BridgeError, Exit, ExitReason, FromBridge, ServerSpec, ToBridge};
use super::PROTOCOL_VERSION;
use crate::mcp::{
    HttpRequest, HttpResponse, HttpTransport, Method, ResponseBody, Timer, TransportError,
};
use crate::text::Text;

/// The command that installs the bridge, as the README gives it.
pub const INSTALL_COMMAND: &str = "cargo run --release -p gemipanel-bridge -- install";

/// The host's native port: posts one message to the bridge (Chrome, or a test, encodes it).
pub trait Port {
    fn post(&self, message: &ToBridge) -> Result<(), String>;
    /// Closes the port (the bridge then exits). An open native port keeps Chrome's service
    /// worker alive, so the link lets go of it once no local server runs.
    fn disconnect(&self) {}
}

/// Opens the port; failures to reach the bridge arrive later, through [`Bridge::disconnected`].
/// It fails at once only where the host cannot even try ([`Problem::NoPermission`], or what
/// its browser said as [`Problem::BridgeEnded`]).
pub type Connect = Box<dyn Fn() -> Result<Rc<dyn Port>, Problem>>;

/// Told of a server whose process ended on its own (crashed, or exited), with what a person
/// should read about it: the server need not wait for a request to fail to show it.
pub type OnExit = Box<dyn Fn(&str, &Problem)>;

/// Messages the GET stream keeps while none is open; older ones are dropped.
const MAX_QUEUED: usize = 256;
/// Bounds for joining chunked messages (Chrome caps one at 1 MB; replies may be many).
const MAX_JOINED_BYTES: usize = 64 * 1024 * 1024;
const MAX_OPEN_CHUNKED: usize = 16;

/// Why a local server cannot be reached, in terms a person can act on.
#[derive(Clone, Debug, PartialEq)]
pub enum Problem {
    /// The person has not granted the optional `nativeMessaging` permission (asked when they
    /// first add or import a local server): Chrome offers no way to the bridge until they do.
    NoPermission,
    /// Chrome found no host manifest for [`super::HOST_NAME`].
    NotInstalled,
    /// The host manifest does not list this extension.
    NotAllowed,
    /// The bridge refused the connection (origin, protocol version).
    Refused(BridgeError),
    /// The bridge process ended or could not be started.
    BridgeEnded(String),
    /// The server's command could not be started.
    SpawnFailed { command: String, message: String },
    /// The server's process ended; the last lines of its stderr.
    Exited { code: Option<i32>, signal: Option<i32>, stderr_tail: String },
    /// The bridge would run another line than the one the person allowed (a `$VAR` expands
    /// to something else, its environment changed): this one, for them to see and allow.
    NotConfirmed(Box<RunLine>),
}

impl Problem {
    /// Reads the reason Chrome gives when a native port closes.
    pub fn from_disconnect(reason: Option<&str>) -> Problem {
        let reason = reason.unwrap_or_default();
        if reason.contains("not found") {
            Problem::NotInstalled
        } else if reason.contains("forbidden") {
            Problem::NotAllowed
        } else if reason.is_empty() {
            Problem::BridgeEnded("the connection closed".into())
        } else {
            Problem::BridgeEnded(reason.to_owned())
        }
    }

    pub fn text(&self) -> Text {
        match self {
            Problem::NoPermission => Text::new("errBridgeNoPermission"),
            Problem::NotInstalled => Text::new("errBridgeMissing").arg(INSTALL_COMMAND),
            Problem::NotAllowed => {
                Text::new("errBridgeForbidden").arg(super::EXTENSION_ID).arg(INSTALL_COMMAND)
            }
            // An extension updated past the installed bridge, or the other way round: the
            // person installs the bridge of this version.
            Problem::Refused(BridgeError::ProtocolMismatch { bridge, worker }) => {
                Text::new("errBridgeOutdated").arg(bridge).arg(worker).arg(INSTALL_COMMAND)
            }
            Problem::Refused(error) => Text::new("errBridgeRefused").arg(error),
            Problem::BridgeEnded(reason) => Text::new("errBridgeEnded").arg(reason),
            Problem::SpawnFailed { command, message } => {
                Text::new("errLocalSpawn").arg(command).arg(message)
            }
            Problem::NotConfirmed(_) => Text::new("errRunNotConfirmed"),
            Problem::Exited { code, signal, stderr_tail } => {
                let how = super::how_it_ended(*code, *signal);
                let tail = last_lines(stderr_tail, 6);
                if tail.is_empty() {
                    Text::new("errLocalExitedSilent").arg(how)
                } else {
                    Text::new("errLocalExited").arg(how).arg(tail)
                }
            }
        }
    }

    fn to_transport(&self) -> TransportError {
        TransportError::connect(self.text().to_string())
    }
}

fn last_lines(text: &str, count: usize) -> String {
    let lines: Vec<&str> = text.trim_end().lines().collect();
    lines[lines.len().saturating_sub(count)..].join("\n")
}

/// What a reply stream (or the GET stream) carries.
enum Routed {
    /// One SSE event.
    Event(Vec<u8>),
    /// The failure that ends the stream.
    Failed(TransportError),
    /// The bridge did not forward the request: the process of its session has ended.
    ProcessGone,
}

/// A request waiting for its response: where its reply stream goes.
struct Waiting {
    id: Value,
    /// The process it was sent to, when it was sent in a session.
    generation: Option<u64>,
    progress_token: Option<Value>,
    reply: UnboundedSender<Routed>,
}

#[derive(Default)]
struct ServerState {
    /// The generation of the running process.
    generation: Option<u64>,
    /// A `start` was posted and its `started` has not come.
    start_sent: bool,
    /// The command line of the last `start` posted.
    starting_spec: Option<ServerSpec>,
    starting: Vec<oneshot::Sender<Result<u64, Problem>>>,
    waiting: Vec<Waiting>,
    standalone: Option<UnboundedSender<Routed>>,
    queued: VecDeque<Value>,
    problem: Option<Problem>,
    /// The last thing the server did wrong without ending (garbage on stdout, say).
    note: Option<BridgeError>,
    logs: Vec<oneshot::Sender<(String, bool)>>,
}

enum Connection {
    Closed,
    /// `hello` posted; these wait for its answer.
    Opening(Rc<dyn Port>, Vec<oneshot::Sender<Result<(), Problem>>>),
    Open(Rc<dyn Port>),
}

/// The connection to the bridge and the state of every local server behind it.
pub struct Bridge {
    connect: Connect,
    connection: RefCell<Connection>,
    /// Drawn at random by the host: sessions of an earlier worker never match.
    seed: u64,
    /// How many connections were opened: each is a bridge of its own, counting from 1.
    connections: std::cell::Cell<u64>,
    reassembler: RefCell<Reassembler>,
    servers: RefCell<Vec<(String, ServerState)>>,
    /// Why the last connection failed or ended.
    problem: RefCell<Option<Problem>>,
    /// The bridge's version, from its `hello`.
    version: RefCell<Option<String>>,
    on_exit: RefCell<Option<OnExit>>,
    /// `resolve`s waiting for their answer, by id.
    resolving: RefCell<Vec<(u64, oneshot::Sender<RunLine>)>>,
    next_resolve: std::cell::Cell<u64>,
    /// The last line the bridge showed for each server, with the command line it was for.
    lines: RefCell<Vec<(String, ServerSpec, RunLine)>>,
}

impl Bridge {
    /// `seed` is random, drawn once per worker (see the module's documentation).
    pub fn new(connect: Connect, seed: u64) -> Bridge {
        Bridge {
            connect,
            connection: RefCell::new(Connection::Closed),
            seed,
            connections: std::cell::Cell::new(0),
            reassembler: RefCell::new(Reassembler::new(MAX_JOINED_BYTES, MAX_OPEN_CHUNKED)),
            servers: RefCell::default(),
            problem: RefCell::default(),
            version: RefCell::default(),
            on_exit: RefCell::default(),
            resolving: RefCell::default(),
            next_resolve: std::cell::Cell::new(1),
            lines: RefCell::default(),
        }
    }

    /// Sets what hears of a process that ended on its own (see [`OnExit`]). It is called while
    /// a message from the port is handled, with none of the link's server state borrowed (it
    /// may call the link, but not set another listener from within).
    pub fn on_exit(&self, listener: OnExit) {
        *self.on_exit.borrow_mut() = Some(listener);
    }

    /// The bridge's version once it said hello.
    pub fn version(&self) -> Option<String> {
        self.version.borrow().clone()
    }

    /// Why `server` (or the bridge as a whole) cannot be reached now, if something went wrong.
    pub fn problem(&self, server: &str) -> Option<Problem> {
        let own = self.with_server(server, |s| s.problem.clone()).flatten();
        own.or_else(|| self.problem.borrow().clone())
    }

    /// The last non-fatal fault of `server` (a line that is not JSON, say).
    pub fn note(&self, server: &str) -> Option<BridgeError> {
        self.with_server(server, |s| s.note.clone()).flatten()
    }

    fn with_server<R>(&self, server: &str, f: impl FnOnce(&mut ServerState) -> R) -> Option<R> {
        let mut servers = self.servers.borrow_mut();
        servers.iter_mut().find(|(id, _)| id == server).map(|(_, state)| f(state))
    }

    fn server_mut<R>(&self, server: &str, f: impl FnOnce(&mut ServerState) -> R) -> R {
        let mut servers = self.servers.borrow_mut();
        let index = match servers.iter().position(|(id, _)| id == server) {
            Some(index) => index,
            None => {
                servers.push((server.to_owned(), ServerState::default()));
                servers.len() - 1
            }
        };
        f(&mut servers[index].1)
    }

    /// Connects and says hello, once; everyone who asks meanwhile waits for the same answer.
    async fn ready(&self) -> Result<(), Problem> {
        let waiter = {
            let mut connection = self.connection.borrow_mut();
            match &mut *connection {
                Connection::Open(_) => return Ok(()),
                Connection::Opening(_, waiters) => {
                    let (tx, rx) = oneshot::channel();
                    waiters.push(tx);
                    rx
                }
                Connection::Closed => {
                    // Kept for the server's status: "allow local servers" is the person's to do.
                    let port = (self.connect)().inspect_err(|problem| {
                        *self.problem.borrow_mut() = Some(problem.clone());
                    })?;
                    self.connections.set(self.connections.get() + 1);
                    let hello = ToBridge::Hello { protocol: PROTOCOL_VERSION };
                    port.post(&hello).map_err(Problem::BridgeEnded)?;
                    let (tx, rx) = oneshot::channel();
                    *connection = Connection::Opening(port, vec![tx]);
                    rx
                }
            }
        };
        waiter.await.unwrap_or_else(|_| Err(Problem::BridgeEnded("the connection closed".into())))
    }

    fn post(&self, message: &ToBridge) -> Result<(), Problem> {
        let port = match &*self.connection.borrow() {
            Connection::Open(port) => port.clone(),
            _ => return Err(Problem::BridgeEnded("not connected".into())),
        };
        port.post(message).map_err(Problem::BridgeEnded)
    }

    /// The generation of `server`'s process, starting it first when it does not run: if the
    /// line as the bridge would run it has the fingerprint `confirmed` (the person's).
    pub async fn process(
        &self,
        server: &str,
        spec: &ServerSpec,
        confirmed: &str,
    ) -> Result<u64, Problem> {
        self.ready().await?;
        let (waiter, send_start) = match self.server_mut(server, |state| {
            if let Some(generation) = state.generation {
                return Err(generation);
            }
            let (tx, rx) = oneshot::channel();
            state.starting.push(tx);
            let send_start = !state.start_sent;
            state.start_sent = true;
            state.starting_spec = Some(spec.clone());
            Ok((rx, send_start))
        }) {
            Ok(waiting) => waiting,
            Err(generation) => return Ok(generation),
        };
        if send_start {
            let start = ToBridge::Start {
                server: server.to_owned(),
                spec: spec.clone(),
                confirmed: confirmed.to_owned(),
            };
            if let Err(problem) = self.post(&start) {
                self.fail_start(server, problem.clone());
                return Err(problem);
            }
        }
        waiter.await.unwrap_or_else(|_| Err(Problem::BridgeEnded("the connection closed".into())))
    }

    /// The line as the bridge would run `spec` for `server`, for the person to see before they
    /// allow it; also kept for [`Bridge::run_line`]. Nothing runs.
    pub async fn resolve(&self, server: &str, spec: &ServerSpec) -> Result<RunLine, Problem> {
        self.ready().await?;
        let id = self.next_resolve.get();
        self.next_resolve.set(id + 1);
        let (tx, rx) = oneshot::channel();
        self.resolving.borrow_mut().push((id, tx));
        if let Err(problem) = self.post(&ToBridge::Resolve { id, spec: spec.clone() }) {
            self.resolving.borrow_mut().retain(|(waiting, _)| *waiting != id);
            return Err(problem);
        }
        let line = rx.await.map_err(|_| Problem::BridgeEnded("the connection closed".into()))?;
        self.keep_line(server, spec, &line);
        // Asked only to show a line: a port left open would keep the worker from sleeping.
        self.release_if_unused();
        Ok(line)
    }

    /// The last line the bridge showed for `server` running `spec`, if it showed one.
    pub fn run_line(&self, server: &str, spec: &ServerSpec) -> Option<RunLine> {
        let lines = self.lines.borrow();
        lines.iter().find(|(s, shown, _)| s == server && shown == spec).map(|(.., l)| l.clone())
    }

    fn keep_line(&self, server: &str, spec: &ServerSpec, line: &RunLine) {
        let mut lines = self.lines.borrow_mut();
        lines.retain(|(s, ..)| s != server);
        lines.push((server.to_owned(), spec.clone(), line.clone()));
    }

    /// Ends `server`'s process and forgets it (its configuration changed or it was removed).
    pub fn stop(&self, server: &str) {
        self.lines.borrow_mut().retain(|(s, ..)| s != server);
        if matches!(&*self.connection.borrow(), Connection::Open(_)) {
            let _ = self.post(&ToBridge::Stop { server: server.to_owned() });
        }
        let state = {
            let mut servers = self.servers.borrow_mut();
            let index = servers.iter().position(|(id, _)| id == server);
            index.map(|i| servers.remove(i).1)
        };
        if let Some(state) = state {
            end_streams(state, &TransportError::io("the local server was stopped"));
        }
    }

    /// The server's stderr log (and whether older output was dropped).
    pub async fn log(&self, server: &str) -> Result<(String, bool), Problem> {
        self.ready().await?;
        let (tx, rx) = oneshot::channel();
        self.server_mut(server, |state| state.logs.push(tx));
        self.post(&ToBridge::Log { server: server.to_owned() })?;
        rx.await.map_err(|_| Problem::BridgeEnded("the connection closed".into()))
    }

    /// Opens the GET stream of `server`: what was queued first, then what comes.
    fn open_standalone(&self, server: &str) -> UnboundedReceiver<Routed> {
        let (tx, rx) = unbounded();
        self.server_mut(server, |state| {
            for message in state.queued.drain(..) {
                let _ = tx.unbounded_send(Routed::Event(sse_event(&message)));
            }
            state.standalone = Some(tx);
        });
        rx
    }

    /// The session id of process `generation` on the current connection.
    fn session_id(&self, generation: u64) -> String {
        format!("local-{:x}-{}-{generation}", self.seed, self.connections.get())
    }

    /// Registers a request's reply stream before the request goes out (to process `generation`).
    fn expect_reply(
        &self,
        server: &str,
        message: &Value,
        generation: Option<u64>,
    ) -> UnboundedReceiver<Routed> {
        let (tx, rx) = unbounded();
        let progress_token = message.pointer("/params/_meta/progressToken").cloned();
        let id = message.get("id").cloned().unwrap_or(Value::Null);
        self.server_mut(server, |state| {
            state.waiting.retain(|w| !w.reply.is_closed());
            state.waiting.push(Waiting { id, generation, progress_token, reply: tx });
        });
        rx
    }

    fn forget_reply(&self, server: &str, id: &Value) {
        self.with_server(server, |state| state.waiting.retain(|w| &w.id != id));
    }

    /// One message from the port as JSON text (as the bridge wrote it).
    pub fn receive(&self, json: &str) {
        // What does not read is not ours to crash on: a bridge of another version may say more.
        // `from_slice`, as the worker reads every JSON document: one decoder in its wasm.
        if let Ok(message) = serde_json::from_slice::<FromBridge>(json.as_bytes()) {
            self.handle(message)
        }
    }

    /// One message from the port, already decoded by the host (a host that cannot decode one
    /// drops it, as [`Bridge::receive`] does).
    pub fn handle(&self, message: FromBridge) {
        match message {
            FromBridge::Hello { version, protocol } => self.hello(version, protocol),
            FromBridge::Started { server, generation, .. } => self.started(&server, generation),
            FromBridge::Message { server, message } => self.route(&server, message),
            FromBridge::Resolved { id, line } => {
                let waiter = {
                    let mut resolving = self.resolving.borrow_mut();
                    let at = resolving.iter().position(|(waiting, _)| *waiting == id);
                    at.map(|at| resolving.remove(at).1)
                };
                if let Some(tx) = waiter {
                    let _ = tx.send(line);
                }
            }
            FromBridge::Exited { server, exit } => self.exited(&server, exit),
            FromBridge::Log { server, text, truncated } => {
                let waiters = self.with_server(&server, |s| std::mem::take(&mut s.logs));
                for tx in waiters.unwrap_or_default() {
                    let _ = tx.send((text.clone(), truncated));
                }
            }
            FromBridge::Error { server: Some(server), error } => self.server_error(&server, error),
            FromBridge::Error { server: None, error } => match error {
                BridgeError::OriginRefused { .. } | BridgeError::ProtocolMismatch { .. } => {
                    self.close(Problem::Refused(error))
                }
                // A message of ours the bridge could not read: nothing waits on it by name.
                other => {
                    *self.problem.borrow_mut() = Some(Problem::Refused(other));
                }
            },
            FromBridge::Chunk(chunk) => {
                let joined = self.reassembler.borrow_mut().push(chunk);
                if let Ok(Some(text)) = joined {
                    self.receive(&text);
                }
            }
        }
    }

    fn hello(&self, version: String, protocol: u32) {
        if protocol != PROTOCOL_VERSION {
            let error =
                BridgeError::ProtocolMismatch { bridge: protocol, worker: PROTOCOL_VERSION };
            return self.close(Problem::Refused(error));
        }
        *self.version.borrow_mut() = Some(version);
        *self.problem.borrow_mut() = None;
        let previous = std::mem::replace(&mut *self.connection.borrow_mut(), Connection::Closed);
        let waiters = match previous {
            Connection::Opening(port, waiters) => {
                *self.connection.borrow_mut() = Connection::Open(port);
                waiters
            }
            other => {
                *self.connection.borrow_mut() = other;
                Vec::new()
            }
        };
        for tx in waiters {
            let _ = tx.send(Ok(()));
        }
    }

    fn started(&self, server: &str, generation: u64) {
        let waiters = self.server_mut(server, |state| {
            state.generation = Some(generation);
            state.start_sent = false;
            state.problem = None;
            std::mem::take(&mut state.starting)
        });
        for tx in waiters {
            let _ = tx.send(Ok(generation));
        }
    }

    /// Sends a server's message to the request it answers or reports on, else to the GET stream.
    fn route(&self, server: &str, message: Value) {
        let is_response = message.get("method").is_none();
        let progress_token = (message.get("method").and_then(Value::as_str)
            == Some("notifications/progress"))
        .then(|| message.pointer("/params/progressToken").cloned())
        .flatten();
        self.server_mut(server, |state| {
            let event = Routed::Event(sse_event(&message));
            if is_response {
                let id = message.get("id").cloned().unwrap_or(Value::Null);
                if let Some(i) = state.waiting.iter().position(|w| w.id == id) {
                    // Dropping the sender ends the reply stream after its response.
                    let _ = state.waiting.remove(i).reply.unbounded_send(event);
                }
                return;
            }
            if let Some(token) = progress_token {
                if let Some(w) =
                    state.waiting.iter().find(|w| w.progress_token == Some(token.clone()))
                {
                    let _ = w.reply.unbounded_send(event);
                    return;
                }
            }
            if let Some(stream) = state.standalone.as_ref().filter(|s| !s.is_closed()) {
                let _ = stream.unbounded_send(event);
                return;
            }
            state.standalone = None;
            if state.queued.len() == MAX_QUEUED {
                state.queued.pop_front();
            }
            state.queued.push_back(message);
        });
    }

    fn exited(&self, server: &str, exit: Exit) {
        let ended = self.with_server(server, |state| {
            // A replaced process may end after its successor started.
            if state.generation.is_some_and(|generation| generation != exit.generation) {
                return None;
            }
            let on_its_own = matches!(exit.reason, ExitReason::Crashed | ExitReason::Exited);
            let problem = on_its_own.then(|| Problem::Exited {
                code: exit.code,
                signal: exit.signal,
                stderr_tail: exit.stderr_tail.clone(),
            });
            if problem.is_some() {
                state.problem = problem.clone();
            }
            state.generation = None;
            state.start_sent = false;
            state.queued.clear();
            // The session's GET stream ends with its process. Requests stay: the bridge answers
            // every request the process left unanswered with an error, before this message, and
            // one sent since for this process with `process_gone` (the client's 404).
            state.standalone = None;
            Some(problem)
        });
        let Some(Some(problem)) = ended else { return };
        if exit.reason == ExitReason::Idle {
            self.release_if_unused();
        }
        if let (Some(problem), Some(listener)) = (problem, &*self.on_exit.borrow()) {
            listener(server, &problem);
        }
    }

    /// Closes the port when every local server has stopped for being idle and nothing waits:
    /// the worker may then sleep; the next request connects again.
    fn release_if_unused(&self) {
        let unused = self.resolving.borrow().is_empty()
            && self.servers.borrow().iter().all(|(_, s)| {
                s.generation.is_none()
                    && s.waiting.is_empty()
                    && s.starting.is_empty()
                    && s.logs.is_empty()
            });
        if !unused {
            return;
        }
        let previous = std::mem::replace(&mut *self.connection.borrow_mut(), Connection::Closed);
        if let Connection::Open(port) = previous {
            self.servers.borrow_mut().clear();
            port.disconnect();
        } else {
            *self.connection.borrow_mut() = previous;
        }
    }

    fn server_error(&self, server: &str, error: BridgeError) {
        match error {
            BridgeError::SpawnFailed { command, message } => {
                self.fail_start(server, Problem::SpawnFailed { command, message })
            }
            BridgeError::NotConfirmed { line } => {
                let spec = self.with_server(server, |state| state.starting_spec.clone());
                if let Some(Some(spec)) = spec {
                    self.keep_line(server, &spec, &line);
                }
                self.fail_start(server, Problem::NotConfirmed(line))
            }
            BridgeError::UnknownServer => {
                let old = self.with_server(server, std::mem::take);
                if let Some(mut old) = old {
                    // A server the bridge never ran has written nothing.
                    for tx in std::mem::take(&mut old.logs) {
                        let _ = tx.send((String::new(), false));
                    }
                    end_streams(old, &TransportError::io("the bridge no longer runs this server"));
                }
            }
            BridgeError::ProcessGone { generation, id } => {
                self.with_server(server, |state| {
                    let sent = state
                        .waiting
                        .iter()
                        .position(|w| w.id == id && w.generation == Some(generation));
                    if let Some(i) = sent {
                        let _ = state.waiting.remove(i).reply.unbounded_send(Routed::ProcessGone);
                    }
                });
            }
            other => {
                self.with_server(server, |state| state.note = Some(other));
            }
        }
    }

    fn fail_start(&self, server: &str, problem: Problem) {
        let waiters = self.server_mut(server, |state| {
            state.start_sent = false;
            state.problem = Some(problem.clone());
            std::mem::take(&mut state.starting)
        });
        for tx in waiters {
            let _ = tx.send(Err(problem.clone()));
        }
    }

    /// The port closed: `reason` is what Chrome said (`chrome.runtime.lastError`).
    pub fn disconnected(&self, reason: Option<&str>) {
        self.close(Problem::from_disconnect(reason));
    }

    /// Ends the connection and everything waiting on it; the next request connects again.
    fn close(&self, problem: Problem) {
        *self.problem.borrow_mut() = Some(problem.clone());
        *self.reassembler.borrow_mut() = Reassembler::new(MAX_JOINED_BYTES, MAX_OPEN_CHUNKED);
        let previous = std::mem::replace(&mut *self.connection.borrow_mut(), Connection::Closed);
        if let Connection::Opening(_, waiters) = previous {
            for tx in waiters {
                let _ = tx.send(Err(problem.clone()));
            }
        }
        // Dropped, a waiting `resolve` hears that the connection closed.
        self.resolving.borrow_mut().clear();
        // The bridge ends every server when the extension disconnects.
        let servers = std::mem::take(&mut *self.servers.borrow_mut());
        for (_, mut state) in servers {
            for tx in std::mem::take(&mut state.starting) {
                let _ = tx.send(Err(problem.clone()));
            }
            end_streams(state, &problem.to_transport());
        }
    }
}

/// Fails every reply stream of a server state and ends its GET stream.
fn end_streams(state: ServerState, error: &TransportError) {
    for w in state.waiting {
        let _ = w.reply.unbounded_send(Routed::Failed(error.clone()));
    }
    for tx in state.starting {
        let _ = tx.send(Err(Problem::BridgeEnded(error.to_string())));
    }
    drop(state.standalone);
}

/// One SSE event carrying a JSON-RPC message (JSON text has no raw line breaks).
fn sse_event(message: &Value) -> Vec<u8> {
    format!("event: message\ndata: {message}\n\n").into_bytes()
}

/// A local server as an HTTP endpoint: what the MCP client holds for it.
pub struct LocalTransport<T> {
    bridge: Rc<Bridge>,
    server: String,
    spec: ServerSpec,
    /// The fingerprint of the line the person allowed (see [`ToBridge::Start`]).
    confirmed: String,
    timer: T,
}

impl<T> LocalTransport<T> {
    pub fn new(
        bridge: Rc<Bridge>,
        server: impl Into<String>,
        spec: ServerSpec,
        confirmed: String,
        timer: T,
    ) -> Self {
        LocalTransport { bridge, server: server.into(), spec, confirmed, timer }
    }

    /// The address the client is configured with: errors name the server by it.
    pub fn url(server: &str) -> String {
        format!("stdio://{server}/")
    }
}

/// The body of a reply from a local server: SSE events as they are routed to it, the first
/// one perhaps read already (to decide the status).
pub struct LocalBody {
    first: Option<Routed>,
    rest: Option<UnboundedReceiver<Routed>>,
}

impl ResponseBody for LocalBody {
    async fn next_chunk(&mut self) -> Result<Option<Vec<u8>>, TransportError> {
        let next = match (self.first.take(), &mut self.rest) {
            (Some(first), _) => Some(first),
            (None, Some(rest)) => next_routed(rest).await,
            (None, None) => None,
        };
        match next {
            Some(Routed::Event(event)) => Ok(Some(event)),
            Some(Routed::Failed(error)) => Err(error),
            // Only ever the first thing for a request, and then answered as 404 (no body).
            Some(Routed::ProcessGone) => {
                Err(TransportError::io("the local server's process ended"))
            }
            None => Ok(None),
        }
    }
}

async fn next_routed(stream: &mut UnboundedReceiver<Routed>) -> Option<Routed> {
    poll_fn(|cx| Pin::new(&mut *stream).poll_next(cx)).await
}

impl LocalBody {
    fn stream(first: Option<Routed>, rest: UnboundedReceiver<Routed>) -> LocalBody {
        LocalBody { first, rest: Some(rest) }
    }

    fn empty() -> LocalBody {
        LocalBody { first: None, rest: None }
    }
}

fn reply(status: u16, session: &str, body: LocalBody) -> HttpResponse<LocalBody> {
    let mut headers = vec![("Mcp-Session-Id".to_owned(), session.to_owned())];
    if body.rest.is_some() {
        headers.push(("Content-Type".into(), "text/event-stream".into()));
    }
    HttpResponse { status, headers, body }
}

impl<T: Timer> HttpTransport for LocalTransport<T> {
    type Body = LocalBody;

    async fn send(&self, request: HttpRequest) -> Result<HttpResponse<LocalBody>, TransportError> {
        let started = self.bridge.process(&self.server, &self.spec, &self.confirmed).await;
        let generation = started.map_err(|p| p.to_transport())?;
        let session = self.bridge.session_id(generation);
        // The process the session was made with has ended: it is a new server now.
        if request.header("Mcp-Session-Id").is_some_and(|asked| asked != session) {
            return Ok(reply(404, &session, LocalBody::empty()));
        }
        match request.method {
            Method::Get => {
                let stream = self.bridge.open_standalone(&self.server);
                Ok(reply(200, &session, LocalBody::stream(None, stream)))
            }
            Method::Delete => Ok(reply(200, &session, LocalBody::empty())),
            Method::Post => {
                let Some(message) = request
                    .body
                    .as_deref()
                    .and_then(|body| serde_json::from_str::<Value>(body).ok())
                    .filter(Value::is_object)
                else {
                    return Ok(reply(400, &session, LocalBody::empty()));
                };
                // A message of a session is for the process the session was made with, and no
                // other: the bridge never hands it to a successor that does not know the session.
                let generation = request.header("Mcp-Session-Id").map(|_| generation);
                let is_request = message.get("method").is_some() && message.get("id").is_some();
                let stream = is_request
                    .then(|| self.bridge.expect_reply(&self.server, &message, generation));
                let id = message.get("id").cloned();
                let send = ToBridge::Send { server: self.server.clone(), generation, message };
                if let Err(problem) = self.bridge.post(&send) {
                    if let (true, Some(id)) = (is_request, id) {
                        self.bridge.forget_reply(&self.server, &id);
                    }
                    return Err(problem.to_transport());
                }
                let Some(mut stream) = stream else {
                    return Ok(reply(202, &session, LocalBody::empty()));
                };
                if generation.is_none() {
                    return Ok(reply(200, &session, LocalBody::stream(None, stream)));
                }
                // The head waits for the first thing routed to the request: the bridge may
                // answer that the session's process has ended, which is this session's 404.
                Ok(match next_routed(&mut stream).await {
                    Some(Routed::ProcessGone) => reply(404, &session, LocalBody::empty()),
                    first => reply(200, &session, LocalBody::stream(first, stream)),
                })
            }
        }
    }
}

impl<T: Timer> Timer for LocalTransport<T> {
    fn sleep(&self, duration: std::time::Duration) -> impl std::future::Future<Output = ()> {
        self.timer.sleep(duration)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use futures::executor::LocalPool;
    use futures::task::LocalSpawnExt;
    use serde_json::json;

    /// A port that keeps what the worker posted, and whether it was closed.
    #[derive(Default)]
    struct Recorded(RefCell<Vec<Value>>, std::cell::Cell<bool>);

    impl Port for Rc<Recorded> {
        fn post(&self, message: &ToBridge) -> Result<(), String> {
            self.0.borrow_mut().push(serde_json::to_value(message).map_err(|e| e.to_string())?);
            Ok(())
        }

        fn disconnect(&self) {
            self.1.set(true);
        }
    }

    fn bridge() -> (Rc<Bridge>, Rc<Recorded>) {
        let port = Rc::new(Recorded::default());
        let given = port.clone();
        let connect = Box::new(move || Ok(Rc::new(given.clone()) as Rc<dyn Port>));
        let bridge = Bridge::new(connect, 0x5eed);
        (Rc::new(bridge), port)
    }

    fn from_bridge(bridge: &Bridge, message: Value) {
        bridge.receive(&message.to_string());
    }

    /// The text of an SSE event a stream carried.
    fn event(routed: Option<Routed>) -> String {
        match routed {
            Some(Routed::Event(bytes)) => String::from_utf8(bytes).unwrap(),
            _ => panic!("not an event"),
        }
    }

    fn spec() -> ServerSpec {
        ServerSpec { command: "srv".into(), args: vec![], env: Default::default(), cwd: None }
    }

    /// Runs `process` to `started` for server `s`, its process of generation 7.
    fn started(pool: &mut LocalPool, bridge: &Rc<Bridge>, s: &str) {
        let (b, name) = (bridge.clone(), s.to_owned());
        let generation = Rc::new(RefCell::new(None));
        let out = generation.clone();
        pool.spawner()
            .spawn_local(async move {
                *out.borrow_mut() = Some(b.process(&name, &spec(), "allowed").await)
            })
            .unwrap();
        pool.run_until_stalled();
        from_bridge(
            bridge,
            json!({"type": "hello", "version": "0.1.0", "protocol": PROTOCOL_VERSION}),
        );
        pool.run_until_stalled();
        from_bridge(
            bridge,
            json!({"type": "started", "server": s, "generation": 7, "pid": 4242, "restarts": 0}),
        );
        pool.run_until_stalled();
        assert_eq!(*generation.borrow(), Some(Ok(7)));
    }

    #[test]
    fn messages_nobody_waits_for_are_queued_boundedly_and_strays_are_dropped() {
        let (bridge, port) = bridge();
        let mut pool = LocalPool::new();
        started(&mut pool, &bridge, "s");
        let posted: Vec<String> =
            port.0.borrow().iter().map(|m| m["type"].as_str().unwrap().to_owned()).collect();
        assert_eq!(posted, ["hello", "start"]);
        // A response to nothing, progress for no token: neither reaches anyone by mistake.
        from_bridge(
            &bridge,
            json!({"type": "message", "server": "s",
            "message": {"jsonrpc": "2.0", "id": 99, "result": {}}}),
        );
        for n in 0..MAX_QUEUED + 10 {
            from_bridge(
                &bridge,
                json!({"type": "message", "server": "s", "message":
                {"jsonrpc": "2.0", "method": "notifications/message", "params": {"n": n}}}),
            );
        }
        let queued = bridge.with_server("s", |s| s.queued.clone()).unwrap();
        assert_eq!(queued.len(), MAX_QUEUED);
        assert_eq!(queued[0]["params"]["n"], 10, "the oldest are dropped");
        let mut stream = bridge.open_standalone("s");
        let first = event(pool.run_until(next_routed(&mut stream)));
        assert!(first.starts_with("event: message\ndata: {") && first.contains(r#""n":10"#));
    }

    #[test]
    fn a_hostile_or_foreign_bridge_cannot_crash_the_worker() {
        let (bridge, _port) = bridge();
        for text in
            ["", "null", "[]", "{\"type\":\"nope\"}", "{\"type\":\"chunk\",\"id\":1}", "\u{0}"]
        {
            bridge.receive(text);
        }
        // Chunks that never complete or claim absurd counts are bounded by the reassembler.
        for i in 0..100u32 {
            from_bridge(
                &bridge,
                json!({"type": "chunk", "id": i, "index": 0,
                "count": u32::MAX, "data": "{"}),
            );
        }
        // A bridge of another protocol is refused, and the reason is the person's to read.
        let mut pool = LocalPool::new();
        let b = bridge.clone();
        let result = Rc::new(RefCell::new(None));
        let out = result.clone();
        pool.spawner()
            .spawn_local(async move {
                *out.borrow_mut() = Some(b.process("s", &spec(), "allowed").await)
            })
            .unwrap();
        pool.run_until_stalled();
        from_bridge(&bridge, json!({"type": "hello", "version": "9", "protocol": 99}));
        pool.run_until_stalled();
        let refused = result.borrow_mut().take().unwrap().unwrap_err();
        assert!(matches!(refused, Problem::Refused(BridgeError::ProtocolMismatch { .. })));
        let said = refused.text().to_string();
        assert!(said.contains("protocol 99") && said.contains(INSTALL_COMMAND), "{said}");
    }

    #[test]
    fn an_exit_says_so_when_the_server_wrote_nothing_to_stderr() {
        let exited = |tail: &str| {
            let stderr_tail = tail.to_owned();
            Problem::Exited { code: Some(1), signal: None, stderr_tail }.text().to_string()
        };
        assert_eq!(
            exited(" \n"),
            "The local server stopped (exit code 1) without writing anything to stderr."
        );
        let said = exited("a\nb\nc\nd\ne\nf\ng\n");
        assert!(said.ends_with("stderr:\nb\nc\nd\ne\nf\ng"), "the last six lines: {said}");
    }

    #[test]
    fn an_exit_is_recorded_with_its_stderr_and_leaves_requests_to_the_bridges_answer() {
        let (bridge, _port) = bridge();
        let mut pool = LocalPool::new();
        started(&mut pool, &bridge, "s");
        let mut reply =
            bridge.expect_reply("s", &json!({"jsonrpc": "2.0", "id": 1, "method": "x"}), Some(7));
        // An old process of the same server ending late changes nothing.
        from_bridge(
            &bridge,
            json!({"type": "exited", "server": "s", "generation": 3,
            "reason": "stopped", "stderr_tail": ""}),
        );
        assert_eq!(bridge.with_server("s", |s| s.generation).flatten(), Some(7));
        from_bridge(
            &bridge,
            json!({"type": "exited", "server": "s", "generation": 7, "code": 2,
            "reason": "crashed", "stderr_tail": "line 1\nTraceback: boom\n"}),
        );
        let said = bridge.problem("s").expect("the exit is recorded").text().to_string();
        assert!(said.contains("exit code 2") && said.contains("Traceback: boom"), "{said}");
        // A request still waiting is not failed here: the bridge's answer for it reaches it.
        from_bridge(
            &bridge,
            json!({"type": "message", "server": "s", "message":
            {"jsonrpc": "2.0", "id": 1, "error": {"code": -32000, "message": "exited"}}}),
        );
        let event = event(pool.run_until(next_routed(&mut reply)));
        assert!(event.contains(r#""message":"exited""#), "{event}");
    }

    /// No timer is needed: nothing here waits for time.
    struct NoTimer;

    impl Timer for NoTimer {
        fn sleep(&self, _: std::time::Duration) -> impl std::future::Future<Output = ()> {
            std::future::pending()
        }
    }

    /// A reply's status and the first chunk of its body, once read.
    type Answered = (u16, Option<String>);

    /// POSTs a JSON-RPC request with id `id` through a transport of server `s`, in `session`;
    /// the status of the reply lands in the returned cell, then its body's first chunk.
    fn post(
        pool: &mut LocalPool,
        bridge: &Rc<Bridge>,
        id: u32,
        session: Option<&str>,
    ) -> Rc<RefCell<Option<Answered>>> {
        let transport = LocalTransport::new(bridge.clone(), "s", spec(), "allowed".into(), NoTimer);
        let mut headers = Vec::new();
        if let Some(session) = session {
            headers.push(("Mcp-Session-Id".to_owned(), session.to_owned()));
        }
        let body = json!({"jsonrpc": "2.0", "id": id, "method": "tools/call"}).to_string();
        let request = HttpRequest {
            method: Method::Post,
            url: LocalTransport::<NoTimer>::url("s"),
            headers,
            body: Some(body),
        };
        let out = Rc::new(RefCell::new(None));
        let result = out.clone();
        pool.spawner()
            .spawn_local(async move {
                let Ok(mut response) = transport.send(request).await else { return };
                *result.borrow_mut() = Some((response.status, None));
                let first = response.body.next_chunk().await.ok().flatten();
                let first = first.map(|chunk| String::from_utf8_lossy(&chunk).into_owned());
                *result.borrow_mut() = Some((response.status, first));
            })
            .unwrap();
        pool.run_until_stalled();
        out
    }

    #[test]
    fn a_request_for_a_process_that_ended_gets_404_and_never_reaches_its_successor() {
        let (bridge, port) = bridge();
        let mut pool = LocalPool::new();
        started(&mut pool, &bridge, "s");
        // Sent in the session of process 7 before the worker learned that it ended.
        let stale = post(&mut pool, &bridge, 1, Some("local-5eed-1-7"));
        let sent = port.0.borrow().last().cloned().unwrap();
        assert_eq!((&sent["type"], &sent["generation"]), (&json!("send"), &json!(7)), "{sent}");
        from_bridge(
            &bridge,
            json!({"type": "exited", "server": "s", "generation": 7, "code": 1,
            "reason": "crashed", "restart_in_ms": 500, "stderr_tail": ""}),
        );
        // The bridge did not forward it: the client hears that its session is gone.
        from_bridge(
            &bridge,
            json!({"type": "error", "server": "s",
            "error": {"kind": "process_gone", "generation": 7, "id": 1}}),
        );
        pool.run_until_stalled();
        assert_eq!(*stale.borrow(), Some((404, None)));
        // A request outside a session (`initialize`) is for whatever process runs.
        let fresh = post(&mut pool, &bridge, 2, None);
        from_bridge(
            &bridge,
            json!({"type": "started", "server": "s", "generation": 8, "pid": 4242,
            "restarts": 1}),
        );
        pool.run_until_stalled();
        let sent = port.0.borrow().last().cloned().unwrap();
        assert_eq!(sent["type"], "send");
        assert!(sent.get("generation").is_none(), "{sent}");
        // In the new session: a gone answer for the old process does not touch it, and its
        // response arrives as the first event of a 200 reply.
        let current = post(&mut pool, &bridge, 3, Some("local-5eed-1-8"));
        from_bridge(
            &bridge,
            json!({"type": "error", "server": "s",
            "error": {"kind": "process_gone", "generation": 7, "id": 3}}),
        );
        from_bridge(
            &bridge,
            json!({"type": "message", "server": "s",
            "message": {"jsonrpc": "2.0", "id": 3, "result": {}}}),
        );
        pool.run_until_stalled();
        let (status, first) = current.borrow_mut().take().expect("answered");
        assert_eq!(status, 200);
        assert!(first.is_some_and(|event| event.contains(r#""id":3"#)));
        assert_eq!(fresh.borrow().as_ref().map(|(status, _)| *status), Some(200));
    }

    #[test]
    fn the_host_hears_at_once_of_a_process_that_ended_on_its_own() {
        let (bridge, _port) = bridge();
        let heard: Rc<RefCell<Vec<(String, Problem)>>> = Rc::default();
        let into = heard.clone();
        bridge.on_exit(Box::new(move |server, problem| {
            into.borrow_mut().push((server.to_owned(), problem.clone()))
        }));
        let mut pool = LocalPool::new();
        started(&mut pool, &bridge, "s");
        // A replaced process ending late, and a process the worker stopped, are no news.
        for (generation, reason) in [(3, "crashed"), (7, "stopped")] {
            from_bridge(
                &bridge,
                json!({"type": "exited", "server": "s", "generation": generation,
                "reason": reason, "stderr_tail": ""}),
            );
        }
        assert!(heard.borrow().is_empty(), "{:?}", heard.borrow());
        for (code, reason) in [(2, "crashed"), (0, "exited")] {
            from_bridge(
                &bridge,
                json!({"type": "started", "server": "s", "generation": 8, "pid": 4242,
                "restarts": 1}),
            );
            from_bridge(
                &bridge,
                json!({"type": "exited", "server": "s", "generation": 8, "code": code,
                "reason": reason, "restart_in_ms": 500, "stderr_tail": "Traceback: boom\n"}),
            );
        }
        let heard = heard.borrow();
        assert_eq!(heard.len(), 2, "{heard:?}");
        assert!(heard.iter().all(|(server, _)| server == "s"));
        let said = heard[0].1.text().to_string();
        assert!(said.contains("exit code 2") && said.contains("Traceback: boom"), "{said}");
        assert_eq!(Some(heard[1].1.clone()), bridge.problem("s"));
    }

    #[test]
    fn once_every_server_stopped_for_being_idle_the_port_is_let_go_and_comes_back() {
        let (bridge, port) = bridge();
        let mut pool = LocalPool::new();
        started(&mut pool, &bridge, "s");
        from_bridge(
            &bridge,
            json!({"type": "exited", "server": "s", "generation": 7,
            "reason": "idle", "stderr_tail": ""}),
        );
        assert!(port.1.get(), "the port is closed so the worker may sleep");
        assert_eq!(bridge.problem("s"), None, "idle is not a problem");
        // The next request connects again and says hello first.
        port.0.borrow_mut().clear();
        started(&mut pool, &bridge, "s");
        let posted: Vec<String> =
            port.0.borrow().iter().map(|m| m["type"].as_str().unwrap().to_owned()).collect();
        assert_eq!(posted, ["hello", "start"]);
    }

    #[test]
    fn a_session_of_an_earlier_bridge_never_names_a_process_of_a_later_one() {
        let (bridge, port) = bridge();
        let mut pool = LocalPool::new();
        started(&mut pool, &bridge, "s");
        assert_eq!(bridge.session_id(7), "local-5eed-1-7");
        // Every server stopped for being idle: the port closes, and the next request reaches a
        // new bridge, which counts its processes from 1 again and may give out 7 again.
        from_bridge(
            &bridge,
            json!({"type": "exited", "server": "s", "generation": 7,
            "reason": "idle", "stderr_tail": ""}),
        );
        started(&mut pool, &bridge, "s");
        assert_eq!(bridge.session_id(7), "local-5eed-2-7");
        port.0.borrow_mut().clear();
        let stale = post(&mut pool, &bridge, 1, Some("local-5eed-1-7"));
        assert_eq!(*stale.borrow(), Some((404, None)));
        assert!(port.0.borrow().is_empty(), "nothing was sent: {:?}", port.0.borrow());
        // A worker that Chrome restarted draws another seed: a session it kept in
        // `chrome.storage.session` from its predecessor is not one of its own either.
        let restarted = Bridge::new(Box::new(|| Err(Problem::NoPermission)), 0xf00d);
        assert_ne!(restarted.session_id(7), bridge.session_id(7));
    }

    #[test]
    fn without_the_native_messaging_permission_a_server_says_what_to_allow_until_it_is_granted() {
        let granted = Rc::new(std::cell::Cell::new(false));
        let port = Rc::new(Recorded::default());
        let (given, allowed) = (port.clone(), granted.clone());
        let bridge = Rc::new(Bridge::new(
            Box::new(move || match allowed.get() {
                true => Ok(Rc::new(given.clone()) as Rc<dyn Port>),
                false => Err(Problem::NoPermission),
            }),
            0x5eed,
        ));
        let mut pool = LocalPool::new();
        let ask = |pool: &mut LocalPool| {
            let (b, out) = (bridge.clone(), Rc::new(RefCell::new(None)));
            let result = out.clone();
            pool.spawner()
                .spawn_local(async move {
                    *result.borrow_mut() = Some(b.process("s", &spec(), "allowed").await)
                })
                .unwrap();
            pool.run_until_stalled();
            out
        };
        let refused = ask(&mut pool);
        assert_eq!(*refused.borrow(), Some(Err(Problem::NoPermission)));
        assert_eq!(bridge.problem("s"), Some(Problem::NoPermission));
        assert_eq!(Problem::NoPermission.text().key, "errBridgeNoPermission");
        assert!(port.0.borrow().is_empty(), "nothing was sent");
        // Granted in the popup: the next request connects and says hello.
        granted.set(true);
        let _pending = ask(&mut pool);
        assert!(port.0.borrow().iter().any(|m| m["type"] == "hello"), "{:?}", port.0.borrow());
        from_bridge(
            &bridge,
            json!({"type": "hello", "version": "0.1.0", "protocol": PROTOCOL_VERSION}),
        );
        assert_eq!(bridge.problem("s"), None);
    }

    #[test]
    fn a_bridge_of_the_previous_protocol_is_refused_in_words_that_say_which_to_install() {
        let (bridge, _port) = bridge();
        let mut pool = LocalPool::new();
        let b = bridge.clone();
        let result = Rc::new(RefCell::new(None));
        let out = result.clone();
        pool.spawner()
            .spawn_local(async move {
                *out.borrow_mut() = Some(b.process("s", &spec(), "allowed").await)
            })
            .unwrap();
        pool.run_until_stalled();
        // What a bridge of protocol 2 answers: its hello, then the mismatch it noticed.
        from_bridge(&bridge, json!({"type": "hello", "version": "0.1.0", "protocol": 2}));
        from_bridge(
            &bridge,
            json!({"type": "error", "error": {"kind": "protocol_mismatch", "bridge": 2,
            "worker": PROTOCOL_VERSION}}),
        );
        pool.run_until_stalled();
        let refused = result.borrow_mut().take().unwrap().unwrap_err();
        let expected = BridgeError::ProtocolMismatch { bridge: 2, worker: PROTOCOL_VERSION };
        assert_eq!(refused, Problem::Refused(expected));
        let said = refused.text().to_string();
        assert!(said.contains("protocol 2") && said.contains(INSTALL_COMMAND), "{said}");
        // Its messages of the old shape (a process named by its pid) start nothing.
        from_bridge(&bridge, json!({"type": "started", "server": "s", "pid": 7, "restarts": 0}));
        assert_eq!(bridge.with_server("s", |s| s.generation).flatten(), None);
        assert!(matches!(bridge.problem("s"), Some(Problem::Refused(_))));
    }

    fn shown_line(fingerprint: &str) -> Value {
        json!({"env": [{"name": "NODE_OPTIONS", "value": "--require ./x.js"}],
               "command": "srv", "expanded": true, "fingerprint": fingerprint})
    }

    #[test]
    fn a_line_the_person_did_not_allow_is_not_started_and_is_kept_to_show_them() {
        let (bridge, port) = bridge();
        let mut pool = LocalPool::new();
        let b = bridge.clone();
        let result = Rc::new(RefCell::new(None));
        let out = result.clone();
        pool.spawner()
            .spawn_local(async move {
                *out.borrow_mut() = Some(b.process("s", &spec(), "allowed-before").await)
            })
            .unwrap();
        pool.run_until_stalled();
        from_bridge(
            &bridge,
            json!({"type": "hello", "version": "0.1.0", "protocol": PROTOCOL_VERSION}),
        );
        pool.run_until_stalled();
        let start = port.0.borrow().last().cloned().unwrap();
        assert_eq!(
            (&start["type"], &start["confirmed"]),
            (&json!("start"), &json!("allowed-before"))
        );
        // Its $VAR expands to something else now: the bridge answers with the line as it would
        // run, and starts nothing.
        from_bridge(
            &bridge,
            json!({"type": "error", "server": "s",
            "error": {"kind": "not_confirmed", "line": shown_line("changed")}}),
        );
        pool.run_until_stalled();
        let refused = result.borrow_mut().take().unwrap().unwrap_err();
        let Problem::NotConfirmed(line) = &refused else { panic!("{refused:?}") };
        assert_eq!(line.fingerprint, "changed");
        assert_eq!(refused.text().key, "errRunNotConfirmed");
        assert_eq!(bridge.run_line("s", &spec()).map(|l| l.fingerprint), Some("changed".into()));
        assert_eq!(bridge.problem("s"), Some(refused));
    }

    #[test]
    fn a_line_asked_for_is_answered_and_the_port_let_go() {
        let (bridge, port) = bridge();
        let mut pool = LocalPool::new();
        let b = bridge.clone();
        let result = Rc::new(RefCell::new(None));
        let out = result.clone();
        pool.spawner()
            .spawn_local(async move { *out.borrow_mut() = Some(b.resolve("s", &spec()).await) })
            .unwrap();
        pool.run_until_stalled();
        from_bridge(
            &bridge,
            json!({"type": "hello", "version": "0.1.0", "protocol": PROTOCOL_VERSION}),
        );
        pool.run_until_stalled();
        let asked = port.0.borrow().last().cloned().unwrap();
        assert_eq!((&asked["type"], &asked["command"]), (&json!("resolve"), &json!("srv")));
        // An answer to another request reaches no one.
        from_bridge(&bridge, json!({"type": "resolved", "id": 99, "line": shown_line("x")}));
        assert!(result.borrow().is_none());
        from_bridge(
            &bridge,
            json!({"type": "resolved", "id": asked["id"], "line": shown_line("f")}),
        );
        pool.run_until_stalled();
        let line = result.borrow_mut().take().unwrap().expect("the line");
        assert_eq!(line.run_changing().count(), 1);
        assert_eq!(bridge.run_line("s", &spec()), Some(line));
        assert!(port.1.get(), "nothing runs: the port is let go so the worker may sleep");
        let mut other = spec();
        other.args.push("--more".into());
        assert_eq!(bridge.run_line("s", &other), None, "a line is for its command line only");
    }
}
