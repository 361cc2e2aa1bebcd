//! One running server process: its stdin fed from a queue, its stdout read as lines of JSON,
//! its stderr kept in a bounded log, and its end (or its stop, escalating from closing stdin to
//! SIGTERM to SIGKILL of its whole group) reported once stdout is drained.

use std::process::Stdio;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use bytes::{Bytes, BytesMut};
use gemipanel_core::native::log_tail::LogTail;
use gemipanel_core::native::wire::{BridgeError, ServerSpec};
use gemipanel_core::native::MAX_SERVER_LINE;
use serde_json::Value;
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWriteExt};
use tokio::process::{Child, ChildStdin, Command};
use tokio::sync::{mpsc, oneshot};
use tokio::time::{sleep_until, Instant};
use tokio_util::codec::{Decoder, LinesCodec, LinesCodecError};

use crate::host::Event;
use crate::process_group;

/// Messages waiting for a server that does not read its stdin.
const STDIN_QUEUE: usize = 256;
/// After stdin is closed, how long a server has to exit before SIGTERM, then before SIGKILL.
const GRACE_BEFORE_TERM: Duration = Duration::from_secs(1);
const GRACE_BEFORE_KILL: Duration = Duration::from_secs(2);
/// After the process exited, how long its stdout may still deliver lines (a grandchild that
/// inherited it can hold it open).
const DRAIN_AFTER_EXIT: Duration = Duration::from_millis(500);
/// How much of a line that is not JSON is shown.
const PREVIEW_CHARS: usize = 200;

/// What a process reports, tagged with its key in [`Event::Process`].
#[derive(Debug)]
pub enum ProcessEvent {
    Line(Result<Value, BridgeError>),
    Exited { code: Option<i32>, signal: Option<i32> },
}

pub struct Process {
    pub pid: u32,
    stdin: Option<mpsc::Sender<Bytes>>,
    stop: Option<oneshot::Sender<()>>,
    pub log: Arc<Mutex<LogTail>>,
}

/// Starts `spec` (already expanded) with the bridge's environment plus its own.
pub fn spawn(
    key: u64,
    spec: &ServerSpec,
    log: Arc<Mutex<LogTail>>,
    events: mpsc::Sender<Event>,
) -> Result<Process, String> {
    let mut command = Command::new(&spec.command);
    command
        .args(&spec.args)
        .envs(&spec.env)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true);
    if let Some(cwd) = &spec.cwd {
        command.current_dir(cwd);
    }
    process_group::configure(&mut command);
    let mut child = command.spawn().map_err(|e| e.to_string())?;
    let pid = child.id().ok_or("the process ended at once")?;
    let (Some(stdin), Some(stdout), Some(stderr)) =
        (child.stdin.take(), child.stdout.take(), child.stderr.take())
    else {
        return Err("its standard streams could not be connected".into());
    };
    let (stdin_tx, stdin_rx) = mpsc::channel(STDIN_QUEUE);
    tokio::spawn(feed_stdin(stdin, stdin_rx));
    tokio::spawn(keep_log(stderr, log.clone()));
    let reader = tokio::spawn(read_stdout(key, stdout, events.clone()));
    let (stop_tx, stop_rx) = oneshot::channel();
    tokio::spawn(watch(key, pid, child, reader, stop_rx, events));
    Ok(Process { pid, stdin: Some(stdin_tx), stop: Some(stop_tx), log })
}

impl Process {
    /// Queues one line (with its newline) for the server's stdin.
    pub fn send(&self, line: Bytes) -> Result<(), BridgeError> {
        let Some(stdin) = &self.stdin else { return Ok(()) };
        match stdin.try_send(line) {
            Ok(()) => Ok(()),
            Err(mpsc::error::TrySendError::Full(_)) => Err(BridgeError::ServerBusy),
            // The process is ending; its exit is reported on its own.
            Err(mpsc::error::TrySendError::Closed(_)) => Ok(()),
        }
    }

    /// Closes stdin (the MCP way to ask a stdio server to end), then signals its group if it
    /// does not end on its own.
    pub fn stop(&mut self) {
        self.stdin = None;
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
    }
}

async fn feed_stdin(mut stdin: ChildStdin, mut lines: mpsc::Receiver<Bytes>) {
    while let Some(line) = lines.recv().await {
        if stdin.write_all(&line).await.is_err() {
            return;
        }
    }
}

async fn keep_log(mut stderr: impl AsyncRead + Unpin, log: Arc<Mutex<LogTail>>) {
    let mut buffer = vec![0; 8192];
    while let Ok(n @ 1..) = stderr.read(&mut buffer).await {
        if let (Ok(mut log), Some(data)) = (log.lock(), buffer.get(..n)) {
            log.push(data);
        }
    }
}

async fn read_stdout(key: u64, mut stdout: impl AsyncRead + Unpin, events: mpsc::Sender<Event>) {
    let mut codec = LinesCodec::new_with_max_length(MAX_SERVER_LINE);
    let mut buffer = BytesMut::with_capacity(64 * 1024);
    loop {
        loop {
            let line = match codec.decode(&mut buffer) {
                Ok(Some(line)) => parse_line(&line),
                Ok(None) => break,
                Err(LinesCodecError::MaxLineLengthExceeded) => {
                    Some(Err(BridgeError::LineTooLong { limit: MAX_SERVER_LINE }))
                }
                Err(LinesCodecError::Io(_)) => {
                    Some(Err(BridgeError::NotJson { line: "(bytes that are not UTF-8)".into() }))
                }
            };
            if let Some(line) = line {
                if events.send(Event::Process(key, ProcessEvent::Line(line))).await.is_err() {
                    return;
                }
            }
        }
        match stdout.read_buf(&mut buffer).await {
            Ok(1..) => {}
            _ => break,
        }
    }
    if let Ok(Some(line)) = codec.decode_eof(&mut buffer) {
        if let Some(line) = parse_line(&line) {
            let _ = events.send(Event::Process(key, ProcessEvent::Line(line))).await;
        }
    }
}

/// A line of stdout: `None` for a blank one.
fn parse_line(line: &str) -> Option<Result<Value, BridgeError>> {
    if line.trim().is_empty() {
        return None;
    }
    Some(
        serde_json::from_str(line)
            .map_err(|_| BridgeError::NotJson { line: line.chars().take(PREVIEW_CHARS).collect() }),
    )
}

/// Waits for the process to end (escalating once asked to stop), lets stdout drain, kills
/// what is left of its group, then reports the exit.
async fn watch(
    key: u64,
    pid: u32,
    mut child: Child,
    reader: tokio::task::JoinHandle<()>,
    mut stop: oneshot::Receiver<()>,
    events: mpsc::Sender<Event>,
) {
    let mut escalation: Option<(Instant, bool)> = None;
    let status = loop {
        tokio::select! {
            status = child.wait() => break status.ok(),
            // A dropped sender means the host is going away: stop as if asked.
            _ = &mut stop, if escalation.is_none() => {
                escalation = Some((Instant::now() + GRACE_BEFORE_TERM, false));
            }
            _ = sleep_until(escalation.map_or_else(Instant::now, |(at, _)| at)), if escalation.is_some() => {
                if escalation.is_some_and(|(_, termed)| termed) {
                    process_group::kill(pid);
                    let _ = child.start_kill();
                    escalation = Some((Instant::now() + Duration::from_secs(3600), true));
                } else {
                    process_group::terminate(pid);
                    escalation = Some((Instant::now() + GRACE_BEFORE_KILL, true));
                }
            }
        }
    };
    let mut reader = reader;
    if tokio::time::timeout(DRAIN_AFTER_EXIT, &mut reader).await.is_err() {
        reader.abort();
    }
    process_group::kill(pid);
    let code = status.and_then(|s| s.code());
    #[cfg(unix)]
    let signal = status.and_then(|s| std::os::unix::process::ExitStatusExt::signal(&s));
    #[cfg(not(unix))]
    let signal = None;
    let _ = events.send(Event::Process(key, ProcessEvent::Exited { code, signal })).await;
}
