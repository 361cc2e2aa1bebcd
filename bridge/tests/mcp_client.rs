//! The extension's MCP client against real stdio servers, through the real bridge, with the
//! worker's end of it (`core::native::link`): the same code as for remote servers, one
//! `HttpTransport` for both. The port is the bridge's stdin and stdout, framed as Chrome frames
//! them.

mod support;

use std::cell::RefCell;
use std::rc::Rc;
use std::time::Duration;

use gemipanel_core::mcp::{
    CallEvent, CallHandler, CallToolResult, Client, ElicitRequest, ElicitResult, Error as McpError,
    ServerConfig, Timer,
};
use gemipanel_core::native::link::{Bridge, LocalTransport, Port, Problem};
use gemipanel_core::native::run_line::RunLine;
use gemipanel_core::native::wire::{ServerSpec, ToBridge};
use serde_json::{json, Map};
use support::{everything, everything_after, filesystem, frame, pinned_origin, time};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::process::{Child, Command};
use tokio::sync::mpsc;

#[derive(Clone, Copy)]
struct TokioTimer;

impl Timer for TokioTimer {
    fn sleep(&self, duration: Duration) -> impl std::future::Future<Output = ()> {
        tokio::time::sleep(duration)
    }
}

/// A native port: frames go to the bridge's stdin through a writer task.
struct StdinPort(mpsc::UnboundedSender<Vec<u8>>);

impl Port for StdinPort {
    fn post(&self, message: &ToBridge) -> Result<(), String> {
        // As Chrome does: the message as JSON, in a native-messaging frame.
        let json = serde_json::to_vec(message).map_err(|e| e.to_string())?;
        self.0.send(frame(&json)).map_err(|_| "the bridge is gone".to_owned())
    }
}

/// Every bridge process the link started (a reconnect starts another, as Chrome would).
type Children = Rc<RefCell<Vec<Child>>>;

/// A link whose `connect` starts the bridge binary as Chrome does, on this thread's `LocalSet`.
fn link() -> (Rc<Bridge>, Children) {
    let children: Children = Rc::default();
    let slot: Rc<RefCell<Option<std::rc::Weak<Bridge>>>> = Rc::default();
    let (kids, weak) = (children.clone(), slot.clone());
    let bridge = Rc::new(Bridge::new(
        Box::new(move || {
            let ended = |e: std::io::Error| Problem::BridgeEnded(e.to_string());
            let home = tempfile::tempdir().map_err(ended)?.keep();
            let mut child = Command::new(support::bridge_binary())
                .arg(pinned_origin())
                .env("HOME", &home)
                .env("XDG_CONFIG_HOME", home.join(".config"))
                .stdin(std::process::Stdio::piped())
                .stdout(std::process::Stdio::piped())
                .stderr(std::process::Stdio::null())
                .kill_on_drop(true)
                .spawn()
                .map_err(ended)?;
            let mut stdin = child.stdin.take().expect("piped");
            let mut stdout = child.stdout.take().expect("piped");
            let (tx, mut rx) = mpsc::unbounded_channel::<Vec<u8>>();
            tokio::task::spawn_local(async move {
                while let Some(bytes) = rx.recv().await {
                    if stdin.write_all(&bytes).await.is_err() {
                        break;
                    }
                }
            });
            let link = weak.borrow().clone().expect("set below");
            tokio::task::spawn_local(async move {
                loop {
                    let mut length = [0u8; 4];
                    if stdout.read_exact(&mut length).await.is_err() {
                        break;
                    }
                    let mut body = vec![0; u32::from_ne_bytes(length) as usize];
                    if stdout.read_exact(&mut body).await.is_err() {
                        break;
                    }
                    let Some(link) = link.upgrade() else { return };
                    link.receive(std::str::from_utf8(&body).expect("UTF-8"));
                }
                // What Chrome reports when a host exits.
                if let Some(link) = link.upgrade() {
                    link.disconnected(Some("Native host has exited."));
                }
            });
            kids.borrow_mut().push(child);
            Ok(Rc::new(StdinPort(tx)) as Rc<dyn Port>)
        }),
        0x7e57,
    ));
    *slot.borrow_mut() = Some(Rc::downgrade(&bridge));
    (bridge, children)
}

/// The fingerprint of the line the bridge shows for `spec`, as the person allowed it: the
/// bridge inherits this process's environment (its own `HOME` changes nothing that runs).
fn allowed(spec: &ServerSpec) -> String {
    let environment: Vec<(String, String)> = std::env::vars().collect();
    RunLine::resolved(spec, &|name| std::env::var(name).ok(), &environment).fingerprint
}

fn client(
    bridge: &Rc<Bridge>,
    server: &str,
    spec: ServerSpec,
) -> Client<LocalTransport<TokioTimer>> {
    let confirmed = allowed(&spec);
    let transport = LocalTransport::new(bridge.clone(), server, spec, confirmed, TokioTimer);
    let mut config = ServerConfig::new(LocalTransport::<TokioTimer>::url(server));
    config.request_timeout = Duration::from_secs(30);
    Client::new(transport, config)
}

/// A long call of server-everything's, with `interrupt` done 300 ms into it; the call's end.
async fn long_call_interrupted(
    client: &Client<LocalTransport<TokioTimer>>,
    seconds: u32,
    interrupt: impl FnOnce(),
) -> Result<CallToolResult, McpError> {
    let call = client.call_tool(
        "trigger-long-running-operation",
        json!({"duration": seconds, "steps": seconds}),
        &(),
        None,
    );
    let interrupt = async {
        tokio::time::sleep(Duration::from_millis(300)).await;
        interrupt();
    };
    tokio::join!(call, interrupt).0
}

async fn local<F: std::future::Future>(test: F) -> F::Output {
    tokio::task::LocalSet::new().run_until(test).await
}

#[derive(Default)]
struct Recorder {
    events: RefCell<Vec<CallEvent>>,
    asked: RefCell<Vec<ElicitRequest>>,
}

impl CallHandler for Recorder {
    fn on_event(&self, event: CallEvent) {
        self.events.borrow_mut().push(event);
    }

    async fn elicit(&self, request: ElicitRequest) -> ElicitResult {
        self.asked.borrow_mut().push(request);
        let mut answer = Map::new();
        answer.insert("name".into(), json!("Ada"));
        ElicitResult::accept(answer)
    }
}

#[tokio::test(flavor = "current_thread")]
async fn tools_progress_elicitation_and_resources_work_as_over_http() {
    local(async {
        let (bridge, _children) = link();
        let client = client(&bridge, "everything", everything());
        let session = client.connect().await.expect("connects through the bridge");
        assert!(session.session_id.as_deref().is_some_and(|s| s.starts_with("local-")));
        assert!(bridge.version().is_some(), "the bridge said hello");

        let tools = client.list_tools().await.expect("tools/list");
        assert!(tools.iter().any(|t| t.name == "echo"), "{tools:?}");
        let echo = client.call_tool("echo", json!({"message": "hi"}), &(), None).await.unwrap();
        assert_eq!(echo.text(), "Echo: hi");

        let recorder = Recorder::default();
        let long = client
            .call_tool(
                "trigger-long-running-operation",
                json!({"duration": 0.3, "steps": 3}),
                &recorder,
                None,
            )
            .await
            .expect("long operation");
        assert!(long.text().contains("completed"), "{long:?}");
        let progress: Vec<f64> = recorder
            .events
            .borrow()
            .iter()
            .filter_map(|e| match e {
                CallEvent::Progress(p) => Some(p.progress),
                _ => None,
            })
            .collect();
        assert_eq!(progress, vec![1.0, 2.0, 3.0], "progress is routed by its token");

        // The server's question has no request to name: it reaches the call's handler through
        // the GET stream, as over HTTP.
        let person = Recorder::default();
        let asked = client
            .call_tool("trigger-elicitation-request", json!({}), &person, None)
            .await
            .expect("elicitation");
        assert_eq!(person.asked.borrow().len(), 1, "{asked:?}");

        let resources = client.list_resources().await.expect("resources/list");
        let read = client.read_resource(&resources[0].uri, &()).await.expect("resources/read");
        assert_eq!(read.contents[0].uri, resources[0].uri);
    })
    .await
}

#[tokio::test(flavor = "current_thread")]
async fn two_servers_share_one_bridge_and_a_five_megabyte_reply_arrives_whole() {
    local(async {
        let dir = tempfile::tempdir().unwrap();
        // The server sends the text twice (content and structuredContent): a 5 MB reply.
        let big = "x".repeat(5 * 1024 * 1024 / 2);
        std::fs::write(dir.path().join("big.txt"), &big).unwrap();
        let (bridge, children) = link();
        let files = client(&bridge, "fs", filesystem(dir.path()));
        let clock = client(&bridge, "time", time());
        let path = dir.path().join("big.txt");
        let (read, now) = tokio::join!(
            files.call_tool("read_text_file", json!({"path": path}), &(), None),
            clock.call_tool("get_current_time", json!({"timezone": "UTC"}), &(), None),
        );
        let read = read.expect("a 5 MB file through Chrome's 1 MB cap");
        assert_eq!(read.text().len(), big.len());
        let structured = read.structured_content.as_ref().map(|s| s.to_string().len());
        assert!(structured.unwrap_or_default() + read.text().len() >= 5 * 1024 * 1024);
        assert!(now.expect("time").text().contains("UTC"));
        assert_eq!(children.borrow().len(), 1, "one bridge process serves both");
    })
    .await
}

#[tokio::test(flavor = "current_thread")]
async fn a_crashed_server_is_explained_and_the_next_call_starts_it_again() {
    local(async {
        let (bridge, _children) = link();
        let spec = everything_after("echo \"pid $$\" >&2");
        let client = client(&bridge, "flaky", spec.clone());
        client.connect().await.expect("connects");
        let generation = bridge.process("flaky", &spec, &allowed(&spec)).await.unwrap();
        let (log, _) = bridge.log("flaky").await.unwrap();
        let pid: u32 = log.lines().find_map(|l| l.strip_prefix("pid ")?.parse().ok()).unwrap();
        // A call in flight when the server dies (SIGKILL, as a crash would end it) fails with
        // the reason. The bridge restarts the server soon after, which clears the problem, so
        // the reason is read from the failed call, not polled.
        let failed = long_call_interrupted(&client, 10, || {
            std::process::Command::new("kill").arg("-9").arg(pid.to_string()).status().unwrap();
        })
        .await;
        let said = failed.expect_err("the call dies with its server").to_string();
        assert!(said.contains("signal 9"), "{said}");
        // The old session belonged to the dead process: the client initializes again.
        let echo = client.call_tool("echo", json!({"message": "back"}), &(), None).await;
        assert_eq!(echo.expect("the next call works").text(), "Echo: back");
        assert!(bridge.process("flaky", &spec, &allowed(&spec)).await.unwrap() > generation);
        assert_eq!(bridge.problem("flaky"), None, "a fresh start clears the problem");
    })
    .await
}

#[tokio::test(flavor = "current_thread")]
async fn garbage_on_stdout_is_noted_and_the_server_still_works() {
    local(async {
        let (bridge, _children) = link();
        let spec = everything_after("echo 'this is not JSON'");
        let client = client(&bridge, "noisy", spec);
        let echo = client.call_tool("echo", json!({"message": "ok"}), &(), None).await;
        assert_eq!(echo.expect("the call").text(), "Echo: ok");
        let note = bridge.note("noisy").expect("the bad line is noted");
        assert!(note.to_string().contains("not JSON"), "{note}");
    })
    .await
}

#[tokio::test(flavor = "current_thread")]
async fn a_command_that_cannot_start_says_so() {
    local(async {
        let (bridge, _children) = link();
        let spec = ServerSpec {
            command: "/nonexistent/mcp-server".into(),
            args: vec![],
            env: Default::default(),
            cwd: None,
        };
        let client = client(&bridge, "missing", spec);
        let err = client.list_tools().await.expect_err("cannot start");
        assert!(err.is_connect(), "{err:?}");
        let problem = bridge.problem("missing").expect("a problem");
        assert!(matches!(problem, Problem::SpawnFailed { .. }), "{problem:?}");
        assert!(err.to_string().contains("/nonexistent/mcp-server"), "{err}");
    })
    .await
}

#[tokio::test(flavor = "current_thread")]
async fn when_the_bridge_ends_calls_fail_and_the_next_one_connects_again() {
    local(async {
        let (bridge, children) = link();
        let client = client(&bridge, "everything", everything());
        client.connect().await.expect("connects");
        let result =
            long_call_interrupted(&client, 5, || children.borrow_mut()[0].start_kill().unwrap())
                .await;
        let err = result.expect_err("the call ends with the bridge");
        assert!(err.to_string().contains("Native host has exited"), "{err}");
        assert!(matches!(bridge.problem("everything"), Some(Problem::BridgeEnded(_))));
        let echo = client.call_tool("echo", json!({"message": "again"}), &(), None).await;
        assert_eq!(echo.expect("a new bridge").text(), "Echo: again");
        assert_eq!(children.borrow().len(), 2);
    })
    .await
}

#[test]
fn chromes_reasons_become_problems_a_person_can_act_on() {
    let missing = Problem::from_disconnect(Some("Specified native messaging host not found."));
    assert_eq!(missing, Problem::NotInstalled);
    assert!(missing.text().to_string().contains("gemipanel-bridge -- install"));
    let forbidden = Problem::from_disconnect(Some(
        "Access to the specified native messaging host is forbidden.",
    ));
    assert_eq!(forbidden, Problem::NotAllowed);
    assert!(forbidden.text().to_string().contains(gemipanel_core::native::EXTENSION_ID));
}
