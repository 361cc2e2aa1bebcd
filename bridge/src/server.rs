//! One running server process: its stdin fed from a queue, its stdout read as lines of JSON,
//! its stderr kept in a bounded log, and its end (or its stop, escalating from closing stdin to
//! SIGTERM to SIGKILL of its whole group) reported once stdout is drained and what it left in
//! its group is killed. Its group is signalled only while the process is unreaped ([`Leader`]):
//! see `process_group`.

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
use tokio::sync::mpsc;
use tokio::time::{sleep_until, Instant};
use tokio_util::codec::{Decoder, LinesCodec, LinesCodecError};

use crate::host::Event;
use crate::process_group;

/// Messages waiting for a server that does not read its stdin.
const STDIN_QUEUE: usize = 256;
/// After stdin is closed, how long a server has to exit before SIGTERM, then before SIGKILL.
const GRACE_BEFORE_TERM: Duration = Duration::from_secs(1);
const GRACE_BEFORE_KILL: Duration = Duration::from_secs(2);
/// When the bridge itself is ending: SIGTERM at once, SIGKILL after this.
pub const SHUTDOWN_GRACE: Duration = Duration::from_secs(1);
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
    stop: mpsc::UnboundedSender<Stop>,
    pub log: Arc<Mutex<LogTail>>,
}

/// How soon a process is to end.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Stop {
    /// Its stdin closed, the MCP way to ask; signals after [`GRACE_BEFORE_TERM`].
    Gently,
    /// SIGTERM now and SIGKILL after [`SHUTDOWN_GRACE`]: the bridge is ending.
    Now,
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
    let (stop_tx, stop_rx) = mpsc::unbounded_channel();
    tokio::spawn(watch(key, Leader::new(child, pid), reader, stop_rx, events));
    Ok(Process { pid, stdin: Some(stdin_tx), stop: stop_tx, log })
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
        let _ = self.stop.send(Stop::Gently);
    }

    /// Signals its group at once (SIGTERM, then SIGKILL after [`SHUTDOWN_GRACE`]): the
    /// bridge is ending. Its exit is reported as always.
    pub fn stop_now(&mut self) {
        self.stdin = None;
        let _ = self.stop.send(Stop::Now);
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
/// what is left of its group, reaps it, then reports the exit.
async fn watch(
    key: u64,
    mut leader: Leader,
    mut reader: tokio::task::JoinHandle<()>,
    mut stop: mpsc::UnboundedReceiver<Stop>,
    events: mpsc::Sender<Event>,
) {
    // When the next signal is due, and whether SIGTERM was sent already.
    let mut escalation: Option<(Instant, bool)> = None;
    let mut stop_open = true;
    loop {
        let due = escalation.map_or_else(Instant::now, |(at, _)| at);
        tokio::select! {
            () = leader.ended() => break,
            asked = stop.recv(), if stop_open => match asked {
                Some(Stop::Gently) if escalation.is_none() => {
                    escalation = Some((Instant::now() + GRACE_BEFORE_TERM, false));
                }
                // A dropped sender means the host is going away: as soon as if asked so.
                Some(Stop::Now) | None => {
                    stop_open = asked.is_some();
                    if !escalation.is_some_and(|(_, termed)| termed) {
                        leader.signal_group(process_group::terminate);
                        escalation = Some((Instant::now() + SHUTDOWN_GRACE, true));
                    }
                }
                Some(Stop::Gently) => {}
            },
            () = sleep_until(due), if escalation.is_some() => {
                if escalation.is_some_and(|(_, termed)| termed) {
                    leader.signal_group(process_group::kill);
                    leader.kill();
                    // Nothing is left to send: wait for the end.
                    escalation = Some((Instant::now() + Duration::from_secs(3600), true));
                } else {
                    leader.signal_group(process_group::terminate);
                    escalation = Some((Instant::now() + GRACE_BEFORE_KILL, true));
                }
            }
        }
    }
    if tokio::time::timeout(DRAIN_AFTER_EXIT, &mut reader).await.is_err() {
        reader.abort();
    }
    // The leader has ended but is not reaped: its group's id is still its own.
    leader.signal_group(process_group::kill);
    let status = leader.reap().await;
    let code = status.and_then(|s| s.code());
    #[cfg(unix)]
    let signal = status.and_then(|s| std::os::unix::process::ExitStatusExt::signal(&s));
    #[cfg(not(unix))]
    let signal = None;
    let _ = events.send(Event::Process(key, ProcessEvent::Exited { code, signal })).await;
}

/// A server's process until it is reaped: its group is signalled only through this, so never
/// after the reap, when the group's id (the process's pid) may be another process's.
struct Leader {
    child: Child,
    pid: u32,
    /// Done once the process has ended, still unreaped.
    #[cfg(unix)]
    ended: Option<tokio::task::JoinHandle<()>>,
}

impl Leader {
    fn new(child: Child, pid: u32) -> Leader {
        Leader {
            child,
            pid,
            #[cfg(unix)]
            ended: Some(tokio::task::spawn_blocking(move || process_group::wait_unreaped(pid))),
        }
    }

    /// Waits until the process has ended, without reaping it (on Windows, where nothing is
    /// signalled by id, it is reaped here).
    async fn ended(&mut self) {
        #[cfg(unix)]
        if let Some(waiting) = &mut self.ended {
            let _ = waiting.await;
            self.ended = None;
        }
        #[cfg(not(unix))]
        let _ = self.child.wait().await;
    }

    fn signal_group(&self, signal: fn(u32)) {
        signal(self.pid);
    }

    /// Kills the process itself (on Windows, the only thing there is to kill).
    fn kill(&mut self) {
        let _ = self.child.start_kill();
    }

    async fn reap(mut self) -> Option<std::process::ExitStatus> {
        self.child.wait().await.ok()
    }
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;
    use crate::process_group::audit;

    /// Whether a process with this pid still exists (a zombie counts as gone).
    fn alive(pid: u32) -> bool {
        match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
            Ok(stat) => !stat.rsplit(')').next().is_some_and(|r| r.trim_start().starts_with('Z')),
            Err(_) => false,
        }
    }

    fn shell(script: &str) -> ServerSpec {
        let args = vec!["-c".to_owned(), script.to_owned()];
        ServerSpec { command: "sh".into(), args, env: Default::default(), cwd: None }
    }

    /// The pid the script wrote to stderr as `helper <pid>`.
    async fn helper_pid(log: &Arc<Mutex<LogTail>>) -> u32 {
        for _ in 0..100 {
            let text = log.lock().map(|l| l.text()).unwrap_or_default();
            let pid = text.lines().find_map(|l| l.strip_prefix("helper ")?.trim().parse().ok());
            if let Some(pid) = pid {
                return pid;
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        panic!("no helper pid in the log");
    }

    async fn exit_of(events: &mut mpsc::Receiver<Event>) -> (Option<i32>, Option<i32>) {
        loop {
            match tokio::time::timeout(Duration::from_secs(10), events.recv()).await {
                Ok(Some(Event::Process(_, ProcessEvent::Exited { code, signal }))) => {
                    return (code, signal)
                }
                Ok(Some(_)) => {}
                other => panic!("no exit: {}", other.is_ok()),
            }
        }
    }

    async fn wait_gone(pid: u32) -> bool {
        for _ in 0..100 {
            if !alive(pid) {
                return true;
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        false
    }

    /// A launcher (`npx`, `uv run`) that crashed leaves its child behind, here one that
    /// ignores SIGTERM and holds stdout. Once the launcher is reaped its pid, the group's id, is
    /// free for any new process: the group is killed before, never after.
    #[tokio::test]
    async fn what_a_server_leaves_behind_is_killed_before_the_server_is_reaped() {
        let log = Arc::new(Mutex::new(LogTail::new(4096)));
        let (events, mut received) = mpsc::channel(16);
        let script = "(trap '' TERM; exec sleep 300) & echo \"helper $!\" >&2; exit 3";
        let process = spawn(1, &shell(script), log.clone(), events).expect("sh starts");
        let helper = helper_pid(&log).await;
        assert_eq!(exit_of(&mut received).await, (Some(3), None));
        assert!(wait_gone(helper).await, "the helper {helper} outlived its server");
        let sent = audit::sent_to(process.pid);
        assert!(!sent.is_empty(), "the group was never signalled");
        assert!(sent.iter().all(|s| !s.leader_reaped), "a reaped group was signalled: {sent:?}");
    }

    /// A server that neither ends when its stdin closes nor on SIGTERM is killed, its group
    /// signalled only while it is unreaped.
    #[tokio::test]
    async fn a_server_that_ignores_the_stop_is_killed_with_its_group() {
        let log = Arc::new(Mutex::new(LogTail::new(4096)));
        let (events, mut received) = mpsc::channel(16);
        let script = "trap '' TERM; sleep 300 & echo \"helper $!\" >&2; exec sleep 300";
        let mut process = spawn(2, &shell(script), log.clone(), events).expect("sh starts");
        let helper = helper_pid(&log).await;
        process.stop();
        assert_eq!(exit_of(&mut received).await, (None, Some(9)));
        assert!(wait_gone(helper).await, "the helper {helper} outlived its server");
        let sent = audit::sent_to(process.pid);
        let signals: Vec<i32> = sent.iter().map(|s| s.signal).collect();
        assert!(signals.starts_with(&[15, 9]), "{sent:?}");
        assert!(sent.iter().all(|s| !s.leader_reaped), "a reaped group was signalled: {sent:?}");
    }
}
