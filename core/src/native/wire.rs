//! The messages between the worker and the bridge: [`ToBridge`] from the worker, [`FromBridge`]
//! back. Each is one JSON object with a `type`; a server is named by the id the worker chose.

use std::fmt;

use indexmap::IndexMap;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::run_line::RunLine;

/// A message from the worker to the bridge.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum ToBridge {
    /// The first message: the worker's protocol version. The bridge answers with its own.
    Hello { protocol: u32 },
    /// Remembers how to run a server and starts it, if the line as the bridge would run it
    /// ([`RunLine::resolved`]) has the fingerprint the person allowed; otherwise nothing changes
    /// and the answer is [`BridgeError::NotConfirmed`] with that line. Starting a running
    /// server with the same command line only answers `started`; with another, the old
    /// process is replaced.
    Start {
        server: String,
        #[serde(flatten)]
        spec: ServerSpec,
        /// The [`RunLine::fingerprint`] the person allowed.
        confirmed: String,
    },
    /// Asks for the line as the bridge would run `spec` (answered by `resolved` with this
    /// `id`), for the person to see before they allow it. Nothing runs.
    Resolve {
        id: u64,
        #[serde(flatten)]
        spec: ServerSpec,
    },
    /// One JSON-RPC message for the server's stdin. A stopped server is started first, unless
    /// the message is meant for a process (`generation`) that is no longer the server's: such a
    /// message never reaches another process (which would not know its session); a request is
    /// answered with [`BridgeError::ProcessGone`], anything else is dropped.
    Send {
        server: String,
        /// The process the message is meant for: the one its session was made with. `None`
        /// outside a session (`initialize`): then whichever process runs.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        generation: Option<u64>,
        message: Value,
    },
    /// Ends the server and forgets its command line.
    Stop { server: String },
    /// Asks for the server's stderr log.
    Log { server: String },
}

/// How to run a local server, as the person configured it (before `$VAR` expansion).
#[derive(Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ServerSpec {
    pub command: String,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub args: Vec<String>,
    /// Added to the bridge's own environment.
    #[serde(default, skip_serializing_if = "IndexMap::is_empty")]
    pub env: IndexMap<String, String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cwd: Option<String>,
}

/// Environment values are often API keys: only their names are shown.
impl fmt::Debug for ServerSpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ServerSpec")
            .field("command", &self.command)
            .field("args", &self.args)
            .field("env", &self.env.keys().collect::<Vec<_>>())
            .field("cwd", &self.cwd)
            .finish()
    }
}

/// A message from the bridge to the worker.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum FromBridge {
    /// The answer to `hello`: the bridge's version (`CARGO_PKG_VERSION`) and protocol.
    Hello { version: String, protocol: u32 },
    /// The server's process runs; a restarted server must be initialized again.
    Started {
        server: String,
        /// Names this process among every process the bridge started, in order from 1: an
        /// operating system's pid is given again to another process soon after (quickly on
        /// Windows), a generation never while the bridge runs.
        generation: u64,
        /// The operating system's id of the process, for a person (or a test) looking for it;
        /// never used to name it.
        pid: u32,
        /// How many times it was restarted after exiting on its own; 0 for the first start.
        restarts: u32,
    },
    /// One JSON-RPC message from the server's stdout.
    Message { server: String, message: Value },
    /// The server's process ended.
    Exited {
        server: String,
        #[serde(flatten)]
        exit: Exit,
    },
    /// The answer to `resolve`.
    Resolved { id: u64, line: RunLine },
    /// The answer to `log`.
    Log {
        server: String,
        text: String,
        /// Older output was dropped to keep the log bounded.
        truncated: bool,
    },
    /// Something the person may need to act on; `server` when it concerns one.
    Error {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        server: Option<String>,
        error: BridgeError,
    },
    /// A piece of a message over [`super::MAX_TO_EXTENSION`] bytes (see [`super::chunk`]).
    Chunk(Chunk),
}

/// How and why a server's process ended.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Exit {
    /// The process, as `started` named it: a replaced process may end after its successor
    /// started.
    pub generation: u64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub code: Option<i32>,
    /// The signal that ended it (Unix).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub signal: Option<i32>,
    pub reason: ExitReason,
    /// When the bridge starts it again; `None` when it will not (it was stopped, or it kept
    /// crashing) until the worker sends it a message.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub restart_in_ms: Option<u64>,
    /// The last lines the server wrote to stderr.
    pub stderr_tail: String,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ExitReason {
    /// It ended on its own with exit code 0.
    Exited,
    /// It ended on its own with another code or a signal.
    Crashed,
    /// The worker asked (`stop`, or `start` with a changed command line).
    Stopped,
    /// Nothing went to or came from it for the idle time (10 minutes).
    Idle,
}

/// A piece of a large message: `data` of all `count` pieces of `id`, in `index` order, is the
/// message's JSON text.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Chunk {
    pub id: u64,
    pub index: u32,
    pub count: u32,
    pub data: String,
}

/// Errors the bridge reports. The pages word them through `_locales`, by `kind` and arguments;
/// `Display` is the English for logs and tests.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum BridgeError {
    /// The caller is not an extension the bridge was installed for.
    OriginRefused { origin: String },
    /// The worker and the bridge speak different versions of this protocol.
    ProtocolMismatch { bridge: u32, worker: u32 },
    /// A message from the worker that is not a [`ToBridge`].
    BadRequest { message: String },
    /// `send`, `stop` or `log` for a server that was never started.
    UnknownServer,
    /// The command could not be started (not found, not executable, bad folder).
    SpawnFailed { command: String, message: String },
    /// The server wrote a line that is not JSON; it was dropped. `line` is its start.
    NotJson { line: String },
    /// The server wrote a line longer than the limit; it was dropped.
    LineTooLong { limit: usize },
    /// The server does not read its stdin fast enough; the message was dropped.
    ServerBusy,
    /// The request `id` was meant for process `generation`, which has ended: it was not
    /// forwarded. Its session is gone with the process; the worker's client starts a new one.
    ProcessGone { generation: u64, id: Value },
    /// A message to the extension could not be encoded (it is dropped).
    Unencodable { message: String },
    /// `start` of a line whose fingerprint is not the one the person allowed (its `$VAR`s
    /// expand to something else now, or the bridge's environment changed): this is the line
    /// as it would run, for the person to see and allow. Nothing was started.
    NotConfirmed { line: Box<RunLine> },
}

impl fmt::Display for BridgeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            BridgeError::OriginRefused { origin } => write!(
                f,
                "the bridge refuses {origin}: it is not an extension it was installed for \
                 (run `gemipanel-bridge install --extension-id <id>`)"
            ),
            BridgeError::ProtocolMismatch { bridge, worker } => write!(
                f,
                "the bridge speaks protocol {bridge} and the extension {worker}: install the \
                 bridge that matches this version of the extension"
            ),
            BridgeError::BadRequest { message } => {
                write!(f, "the bridge could not read a message: {message}")
            }
            BridgeError::UnknownServer => f.write_str("no such local server was started"),
            BridgeError::SpawnFailed { command, message } => {
                write!(f, "could not start `{command}`: {message}")
            }
            BridgeError::NotJson { line } => {
                write!(f, "the server wrote a line that is not JSON: {line}")
            }
            BridgeError::LineTooLong { limit } => {
                write!(f, "the server wrote a line over {limit} bytes; it was dropped")
            }
            BridgeError::ServerBusy => {
                f.write_str("the server is not reading its input; a message was dropped")
            }
            BridgeError::ProcessGone { generation, .. } => write!(
                f,
                "the server's process (start {generation}) has ended; a request for it was not sent"
            ),
            BridgeError::Unencodable { message } => {
                write!(f, "a message could not be encoded for the extension: {message}")
            }
            BridgeError::NotConfirmed { line } => {
                write!(f, "the command line as it would run was not allowed: {}", line.text())
            }
        }
    }
}

impl std::error::Error for BridgeError {}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::native::run_line::ShownVariable;
    use serde_json::json;

    /// The wire shapes the worker will be written against, one per variant.
    #[test]
    fn messages_have_the_documented_json() {
        let to: Vec<(ToBridge, Value)> = vec![
            (ToBridge::Hello { protocol: 1 }, json!({"type": "hello", "protocol": 1})),
            (
                ToBridge::Start {
                    server: "fs".into(),
                    spec: ServerSpec {
                        command: "npx".into(),
                        args: vec!["-y".into(), "pkg".into()],
                        env: [("KEY".to_owned(), "$KEY".to_owned())].into_iter().collect(),
                        cwd: Some("/tmp".into()),
                    },
                    confirmed: "00ff".into(),
                },
                json!({"type": "start", "server": "fs", "command": "npx", "args": ["-y", "pkg"],
                       "env": {"KEY": "$KEY"}, "cwd": "/tmp", "confirmed": "00ff"}),
            ),
            (
                ToBridge::Resolve {
                    id: 4,
                    spec: ServerSpec {
                        command: "npx".into(),
                        args: vec![],
                        env: IndexMap::new(),
                        cwd: None,
                    },
                },
                json!({"type": "resolve", "id": 4, "command": "npx"}),
            ),
            (
                ToBridge::Send {
                    server: "fs".into(),
                    generation: None,
                    message: json!({"jsonrpc": "2.0"}),
                },
                json!({"type": "send", "server": "fs", "message": {"jsonrpc": "2.0"}}),
            ),
            (
                ToBridge::Send {
                    server: "fs".into(),
                    generation: Some(42),
                    message: json!({"id": 1}),
                },
                json!({"type": "send", "server": "fs", "generation": 42, "message": {"id": 1}}),
            ),
            (ToBridge::Stop { server: "fs".into() }, json!({"type": "stop", "server": "fs"})),
            (ToBridge::Log { server: "fs".into() }, json!({"type": "log", "server": "fs"})),
        ];
        for (message, expected) in to {
            assert_eq!(serde_json::to_value(&message).unwrap(), expected);
            assert_eq!(serde_json::from_value::<ToBridge>(expected).unwrap(), message);
        }
        let from: Vec<(FromBridge, Value)> = vec![
            (
                FromBridge::Hello { version: "0.1.0".into(), protocol: 1 },
                json!({"type": "hello", "version": "0.1.0", "protocol": 1}),
            ),
            (
                FromBridge::Started { server: "fs".into(), generation: 3, pid: 42, restarts: 0 },
                json!({"type": "started", "server": "fs", "generation": 3, "pid": 42,
                       "restarts": 0}),
            ),
            (
                FromBridge::Exited {
                    server: "fs".into(),
                    exit: Exit {
                        generation: 3,
                        code: Some(1),
                        signal: None,
                        reason: ExitReason::Crashed,
                        restart_in_ms: Some(500),
                        stderr_tail: "boom\n".into(),
                    },
                },
                json!({"type": "exited", "server": "fs", "generation": 3, "code": 1, "reason": "crashed",
                       "restart_in_ms": 500, "stderr_tail": "boom\n"}),
            ),
            (
                FromBridge::Error {
                    server: Some("fs".into()),
                    error: BridgeError::SpawnFailed {
                        command: "nope".into(),
                        message: "not found".into(),
                    },
                },
                json!({"type": "error", "server": "fs", "error": {"kind": "spawn_failed",
                       "command": "nope", "message": "not found"}}),
            ),
            (
                FromBridge::Error {
                    server: Some("fs".into()),
                    error: BridgeError::ProcessGone { generation: 3, id: json!(1) },
                },
                json!({"type": "error", "server": "fs",
                       "error": {"kind": "process_gone", "generation": 3, "id": 1}}),
            ),
            (
                FromBridge::Error { server: None, error: BridgeError::UnknownServer },
                json!({"type": "error", "error": {"kind": "unknown_server"}}),
            ),
            (
                FromBridge::Resolved {
                    id: 4,
                    line: RunLine {
                        env: vec![ShownVariable {
                            name: "LD_PRELOAD".into(),
                            value: Some("/x.so".into()),
                            inherited: true,
                        }],
                        command: "npx".into(),
                        args: vec![],
                        cwd: None,
                        expanded: true,
                        variables: vec![],
                        fingerprint: "00ff".into(),
                    },
                },
                json!({"type": "resolved", "id": 4, "line": {"env": [{"name": "LD_PRELOAD",
                       "value": "/x.so", "inherited": true}], "command": "npx",
                       "expanded": true, "fingerprint": "00ff"}}),
            ),
            (
                FromBridge::Chunk(Chunk { id: 3, index: 0, count: 2, data: "{\"ty".into() }),
                json!({"type": "chunk", "id": 3, "index": 0, "count": 2, "data": "{\"ty"}),
            ),
        ];
        for (message, expected) in from {
            assert_eq!(serde_json::to_value(&message).unwrap(), expected);
            assert_eq!(serde_json::from_value::<FromBridge>(expected).unwrap(), message);
        }
    }

    #[test]
    fn a_start_needs_only_a_command_and_what_the_person_allowed() {
        let start: ToBridge = serde_json::from_value(
            json!({"type": "start", "server": "t", "command": "x", "confirmed": "00"}),
        )
        .unwrap();
        let ToBridge::Start { spec, .. } = start else { panic!("not a start: {start:?}") };
        assert!(spec.args.is_empty() && spec.env.is_empty() && spec.cwd.is_none());
    }

    #[test]
    fn environment_values_stay_out_of_debug_output() {
        let spec = ServerSpec {
            command: "srv".into(),
            args: vec![],
            env: [("API_KEY".to_owned(), "sk-secret".to_owned())].into_iter().collect(),
            cwd: None,
        };
        let shown = format!("{spec:?}");
        assert!(shown.contains("API_KEY") && !shown.contains("sk-secret"), "{shown}");
    }
}
