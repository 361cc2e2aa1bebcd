//! The protocol between the service worker and the native-messaging bridge (`gemipanel-bridge`),
//! which runs local stdio MCP servers for the worker.
//!
//! Chrome carries each message as one length-prefixed JSON text; [`wire`] has the two message
//! enums, one per direction, used by both ends. Chrome refuses a message from the bridge over
//! [`MAX_TO_EXTENSION`] bytes, so larger ones travel as [`wire::Chunk`]s: [`chunk::frames`]
//! splits on the bridge, [`chunk::Reassembler`] joins in the worker. The rest is the bridge's
//! pure bookkeeping: `$VAR` expansion of a server's command line ([`expand`]), the line as the
//! person is asked to allow it ([`run_line`], with the variables that change what runs,
//! [`run_env`]), the requests a server has not answered yet ([`pending`]), when to restart a
//! server that exited ([`restart`]), and the bounded tail of its stderr ([`log_tail`]).

pub mod chunk;
pub mod expand;
pub mod link;
pub mod log_tail;
pub mod pending;
pub mod restart;
pub mod run_env;
pub mod run_line;
pub mod wire;

/// How a process ended, in words for logs and messages: "exit code 1", "signal 9".
pub fn how_it_ended(code: Option<i32>, signal: Option<i32>) -> String {
    match (code, signal) {
        (Some(code), _) => format!("exit code {code}"),
        (None, Some(signal)) => format!("signal {signal}"),
        (None, None) => "no exit code".to_owned(),
    }
}

/// Raised when either side changes the meaning of a message; `hello` carries it both ways.
/// 2: `send` names the process it is meant for, and the bridge answers `process_gone`.
/// 3: processes are named by a generation the bridge counts (`started`, `exited`, `send`,
/// `process_gone`), no longer by their pid, which the operating system gives again.
/// 4: `start` carries the fingerprint of the line the person allowed, which the bridge checks
/// against the line as it would run (`not_confirmed`); `resolve` asks for that line.
pub const PROTOCOL_VERSION: u32 = 4;

/// Chrome's cap on one message from a native host to the extension.
pub const MAX_TO_EXTENSION: usize = 1024 * 1024;

/// Chrome's cap on one message from the extension to a native host.
pub const MAX_FROM_EXTENSION: usize = 64 * 1024 * 1024;

/// The longest line the bridge reads from a server (one JSON-RPC message); longer ones are
/// dropped and reported.
pub const MAX_SERVER_LINE: usize = 32 * 1024 * 1024;

/// The host name the bridge is installed under (`chrome.runtime.connectNative(HOST_NAME)`).
pub const HOST_NAME: &str = "io.github.gemipanel.bridge";

/// The extension id pinned by the `key` in manifest.json.
pub const EXTENSION_ID: &str = "kllodkfcinihfdkamgbfclpklodomgdp";
