//! The bridge as the browser runs it, against real stdio MCP servers: server-everything and
//! server-filesystem (npm) and mcp-server-time (PyPI).

mod support;

use std::time::Duration;

use gemipanel_core::native::run_line::RunLine;
use gemipanel_core::native::wire::{BridgeError, Exit, ExitReason, FromBridge, ToBridge};
use gemipanel_core::native::{MAX_TO_EXTENSION, PROTOCOL_VERSION};
use serde_json::json;
use support::*;

#[test]
fn hello_arrives_through_frames_written_a_byte_at_a_time() {
    let mut bridge = Bridge::start();
    let hello = serde_json::to_vec(&ToBridge::Hello { protocol: PROTOCOL_VERSION }).unwrap();
    let hello = frame(&hello);
    for byte in &hello {
        bridge.write(std::slice::from_ref(byte));
        std::thread::sleep(Duration::from_millis(2));
    }
    assert_eq!(
        bridge.recv(),
        FromBridge::Hello { version: env!("CARGO_PKG_VERSION").into(), protocol: PROTOCOL_VERSION }
    );
    // Three frames in one write, one of them not a message: each is answered, in order.
    let mut bytes = frame(br#"{"type":"log","server":"a"}"#);
    bytes.extend(frame(b"{\"type\":\"launch\"}"));
    bytes.extend(frame(br#"{"type":"hello","protocol":99}"#));
    bridge.write(&bytes);
    assert_eq!(
        bridge.recv(),
        FromBridge::Error { server: Some("a".into()), error: BridgeError::UnknownServer }
    );
    assert!(matches!(
        bridge.recv(),
        FromBridge::Error { server: None, error: BridgeError::BadRequest { .. } }
    ));
    assert!(matches!(bridge.recv(), FromBridge::Hello { .. }));
    assert_eq!(
        bridge.recv(),
        FromBridge::Error {
            server: None,
            error: BridgeError::ProtocolMismatch { bridge: PROTOCOL_VERSION, worker: 99 }
        }
    );
}

#[test]
fn three_servers_run_at_once_and_replies_reach_the_right_one() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("hello.txt"), "hi").unwrap();
    let mut bridge = Bridge::start();
    bridge.start_server("everything", everything());
    bridge.start_server("fs", filesystem(dir.path()));
    bridge.start_server("time", time());
    // All handshakes in flight before any reply is read.
    for server in ["everything", "fs", "time"] {
        bridge.request(server, json!("init"), "initialize", initialize_params());
    }
    let mut names = Vec::new();
    for server in ["everything", "fs", "time"] {
        let response = bridge.response(server, &json!("init"));
        names
            .push(response["result"]["serverInfo"]["name"].as_str().unwrap_or_default().to_owned());
        bridge.send(&ToBridge::Send {
            server: server.into(),
            generation: None,
            message: json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
        });
    }
    assert!(names[0].contains("everything"), "{names:?}");
    assert!(names[1].contains("filesystem"), "{names:?}");
    assert!(names[2].contains("time"), "{names:?}");
    bridge.request(
        "everything",
        json!(2),
        "tools/call",
        json!({"name": "echo", "arguments": {"message": "one"}}),
    );
    let listing = json!({"name": "list_directory", "arguments": {"path": dir.path()}});
    bridge.request("fs", json!(2), "tools/call", listing);
    let now = json!({"name": "get_current_time", "arguments": {"timezone": "UTC"}});
    bridge.request("time", json!(2), "tools/call", now);
    assert_eq!(tool_text(&bridge.response("everything", &json!(2))), "Echo: one");
    assert!(tool_text(&bridge.response("fs", &json!(2))).contains("hello.txt"));
    assert!(tool_text(&bridge.response("time", &json!(2))).contains("\"timezone\": \"UTC\""));
}

#[test]
fn a_server_killed_mid_call_fails_the_call_and_comes_back() {
    let mut bridge = Bridge::start();
    let old = bridge.start_server("everything", everything());
    bridge.initialize("everything");
    let long = json!({"name": "trigger-long-running-operation", "arguments": {"duration": 30, "steps": 30},
                      "_meta": {"progressToken": "p"}});
    bridge.request("everything", json!(7), "tools/call", long);
    // The call is running once progress comes.
    bridge.recv_until(|m| match m {
        FromBridge::Message { message, .. } if message["method"] == "notifications/progress" => {
            Some(())
        }
        _ => None,
    });
    std::process::Command::new("kill").args(["-9", &old.pid.to_string()]).status().unwrap();
    let failed = bridge.response("everything", &json!(7));
    let error = &failed["error"];
    assert_eq!(error["code"], -32000, "{failed}");
    assert!(error["message"].as_str().unwrap().contains("exited (signal 9)"), "{failed}");
    let exit = bridge.recv_until(|m| match m {
        FromBridge::Exited { exit, .. } => Some(exit.clone()),
        _ => None,
    });
    assert_eq!(exit.reason, ExitReason::Crashed);
    assert_eq!(exit.signal, Some(9));
    assert_eq!(exit.restart_in_ms, Some(500));
    let restarts = bridge.recv_until(|m| match m {
        FromBridge::Started { restarts, generation, .. } => {
            assert_eq!(*generation, old.generation + 1, "the next generation");
            Some(*restarts)
        }
        _ => None,
    });
    assert_eq!(restarts, 1);
    bridge.initialize("everything");
    let echo = bridge.call(
        "everything",
        json!(8),
        "tools/call",
        json!({"name": "echo", "arguments": {"message": "back"}}),
    );
    assert_eq!(tool_text(&echo), "Echo: back");
}

/// A `send` the worker meant for process `generation` (the one its session was made with), as
/// JSON.
fn send_to_process(bridge: &mut Bridge, server: &str, generation: u64, message: serde_json::Value) {
    let send =
        json!({"type": "send", "server": server, "generation": generation, "message": message});
    bridge.write(&frame(send.to_string().as_bytes()));
}

/// The bridge's answer to a request for a process that is gone; a panic if the request was
/// answered by a server instead (it reached another process).
fn gone_answer(bridge: &Bridge, server: &str, id: &serde_json::Value) -> serde_json::Value {
    bridge.recv_until(|m| match m {
        FromBridge::Error { server: Some(s), error } if s == server => {
            Some(serde_json::to_value(error).unwrap())
        }
        FromBridge::Message { message, .. } if message.get("id") == Some(id) => {
            panic!("the request reached a process: {message}")
        }
        _ => None,
    })
}

#[test]
fn a_message_for_a_process_that_ended_never_reaches_its_successor() {
    let mut bridge = Bridge::start();
    let old = bridge.start_server("everything", everything());
    bridge.initialize("everything");
    std::process::Command::new("kill").args(["-9", &old.pid.to_string()]).status().unwrap();
    let exit = bridge.recv_until(|m| match m {
        FromBridge::Exited { exit, .. } => Some(exit.clone()),
        _ => None,
    });
    assert_eq!((exit.generation, exit.restart_in_ms), (old.generation, Some(500)));
    // Sent before the worker learned of the exit: no process runs, none is started for it.
    let echo = |id: u32| {
        json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
               "params": {"name": "echo", "arguments": {"message": "lost"}}})
    };
    send_to_process(&mut bridge, "everything", old.generation, echo(1));
    let gone = gone_answer(&bridge, "everything", &json!(1));
    assert_eq!(gone, json!({"kind": "process_gone", "generation": old.generation, "id": 1}));
    // Its successor, restarted after the backoff, is not the process it was meant for either.
    let new = bridge.recv_until(|m| match m {
        FromBridge::Started { generation, restarts: 1, .. } => Some(*generation),
        FromBridge::Started { .. } => panic!("a process was started for the stale request"),
        _ => None,
    });
    send_to_process(&mut bridge, "everything", old.generation, echo(2));
    let gone = gone_answer(&bridge, "everything", &json!(2));
    assert_eq!(gone, json!({"kind": "process_gone", "generation": old.generation, "id": 2}));
    // A notification for the old process is dropped without a word.
    let initialized = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
    send_to_process(&mut bridge, "everything", old.generation, initialized);
    bridge.expect_silence(Duration::from_millis(300));
    // The new session: initialized, then its requests name the new process.
    bridge.initialize("everything");
    send_to_process(&mut bridge, "everything", new, echo(3));
    assert_eq!(tool_text(&bridge.response("everything", &json!(3))), "Echo: lost");
}

#[test]
fn lines_that_are_not_json_are_reported_and_skipped() {
    let mut bridge = Bridge::start();
    let noisy = everything_after("echo 'Starting up...'; echo '{\"half\": '; echo oops >&2");
    bridge.start_server("noisy", noisy);
    let mut reported = Vec::new();
    for _ in 0..2 {
        match bridge.recv() {
            FromBridge::Error { server: Some(server), error: BridgeError::NotJson { line } } => {
                assert_eq!(server, "noisy");
                reported.push(line);
            }
            other => panic!("expected a not-JSON report, got {other:?}"),
        }
    }
    assert_eq!(reported, ["Starting up...", "{\"half\": "]);
    let info = bridge.initialize("noisy");
    assert!(info["serverInfo"]["name"].as_str().unwrap().contains("everything"));
    bridge.send(&ToBridge::Log { server: "noisy".into() });
    let text = bridge.recv_until(|m| match m {
        FromBridge::Log { text, truncated: false, .. } => Some(text.clone()),
        _ => None,
    });
    assert!(text.contains("oops"), "{text:?}");
}

#[test]
fn a_five_megabyte_reply_is_split_under_chromes_cap_and_joined() {
    let dir = tempfile::tempdir().unwrap();
    // Quotes, backslashes, control characters and wide characters all grow when escaped.
    let line = "\"quoted\" back\\slash\ttab \u{1} 日本語 🦀 plain text to fill the line\n";
    let content = line.repeat((5 << 20) / line.len() + 1);
    let file = dir.path().join("big.txt");
    std::fs::write(&file, &content).unwrap();
    let mut bridge = Bridge::start();
    bridge.start_server("fs", filesystem(dir.path()));
    bridge.initialize("fs");
    let frames_before = bridge.frames.load(std::sync::atomic::Ordering::SeqCst);
    let read = json!({"name": "read_text_file", "arguments": {"path": file}});
    let response = bridge.call("fs", json!(1), "tools/call", read);
    assert_eq!(tool_text(&response), content);
    let frames = bridge.frames.load(std::sync::atomic::Ordering::SeqCst) - frames_before;
    assert!(frames > 5, "a 5 MB reply came in {frames} frames");
    let largest = bridge.largest_frame.load(std::sync::atomic::Ordering::SeqCst);
    assert!(largest <= MAX_TO_EXTENSION, "a frame of {largest} bytes");
}

#[test]
fn closing_stdin_ends_every_server_and_what_they_started_then_the_bridge() {
    let mut bridge = Bridge::start();
    // A grandchild in the server's group: `sleep` started in the background by the shell.
    // It ignores SIGTERM: only the SIGKILL that follows ends it.
    let with_helper = everything_after("(trap '' TERM; exec sleep 300) & echo \"helper $!\" >&2");
    let node = bridge.start_server("everything", with_helper).pid;
    let python = bridge.start_server("time", time()).pid;
    bridge.initialize("everything");
    bridge.initialize("time");
    bridge.send(&ToBridge::Log { server: "everything".into() });
    let log = bridge.recv_until(|m| match m {
        FromBridge::Log { text, .. } => Some(text.clone()),
        _ => None,
    });
    let helper: u32 = log
        .lines()
        .find_map(|l| l.strip_prefix("helper "))
        .and_then(|pid| pid.trim().parse().ok())
        .unwrap_or_else(|| panic!("no helper pid in {log:?}"));
    assert!(is_alive(node) && is_alive(python) && is_alive(helper));
    bridge.close_stdin();
    let status = bridge.wait_exit(Duration::from_secs(10)).expect("the bridge exits");
    assert!(status.success(), "{status:?}");
    assert_eq!(wait_gone(&[node, python, helper], Duration::from_secs(5)), Vec::<u32>::new());
}

#[test]
fn an_origin_that_is_not_allowed_is_refused() {
    let origin = "chrome-extension://bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb/";
    let mut bridge = Bridge::start_with(origin, &[], None);
    assert_eq!(
        bridge.recv(),
        FromBridge::Error {
            server: None,
            error: BridgeError::OriginRefused { origin: origin.into() }
        }
    );
    let status = bridge.wait_exit(Duration::from_secs(5)).expect("the bridge exits");
    assert!(!status.success());
    std::thread::sleep(Duration::from_millis(100));
    let stderr = bridge.stderr.lock().unwrap().clone();
    assert!(stderr.contains("refuses") && stderr.contains("--extension-id"), "{stderr}");
}

#[test]
fn an_idle_server_is_stopped_and_started_again_on_demand() {
    let mut bridge =
        Bridge::start_with(&pinned_origin(), &[("GEMIPANEL_BRIDGE_IDLE_MS", "500")], None);
    let first = bridge.start_server("time", time()).pid;
    bridge.initialize("time");
    let exit = bridge.recv_until(|m| match m {
        FromBridge::Exited { server, exit } if server == "time" => Some(exit.clone()),
        _ => None,
    });
    assert_eq!(exit.reason, ExitReason::Idle);
    assert_eq!(exit.restart_in_ms, None);
    assert_eq!(wait_gone(&[first], Duration::from_secs(5)), Vec::<u32>::new());
    // A message brings it back: a new process that needs its handshake again.
    let info = bridge.initialize("time");
    assert!(info["serverInfo"]["name"].as_str().unwrap().contains("time"), "{info}");
}

#[test]
fn stop_ends_a_server_and_forgets_it() {
    let mut bridge = Bridge::start();
    let pid = bridge.start_server("time", time()).pid;
    bridge.initialize("time");
    bridge.send(&ToBridge::Stop { server: "time".into() });
    let exit = bridge.recv_until(|m| match m {
        FromBridge::Exited { exit, .. } => Some(exit.clone()),
        _ => None,
    });
    assert!(
        matches!(exit, Exit { reason: ExitReason::Stopped, restart_in_ms: None, .. }),
        "{exit:?}"
    );
    assert_eq!(wait_gone(&[pid], Duration::from_secs(5)), Vec::<u32>::new());
    bridge.request("time", json!(1), "tools/list", json!({}));
    assert_eq!(
        bridge.recv(),
        FromBridge::Error { server: Some("time".into()), error: BridgeError::UnknownServer }
    );
    let failed = bridge.response("time", &json!(1));
    assert_eq!(failed["error"]["message"], "no such local server was started");
}

#[test]
fn a_command_that_cannot_start_is_reported_and_its_request_fails() {
    let mut bridge = Bridge::start();
    let gone = spec("/nonexistent/server", &[]);
    let confirmed = bridge.resolve(&gone).fingerprint;
    bridge.send(&ToBridge::Start { server: "gone".into(), spec: gone, confirmed });
    match bridge.recv() {
        FromBridge::Error { server, error: BridgeError::SpawnFailed { command, message } } => {
            assert_eq!(server.as_deref(), Some("gone"));
            assert_eq!(command, "/nonexistent/server");
            assert!(message.contains("No such file"), "{message}");
        }
        other => panic!("expected spawn_failed, got {other:?}"),
    }
    bridge.request("gone", json!(1), "tools/list", json!({}));
    assert!(matches!(
        bridge.recv(),
        FromBridge::Error { error: BridgeError::SpawnFailed { .. }, .. }
    ));
    let failed = bridge.response("gone", &json!(1));
    assert_eq!(failed["error"]["message"], "the local server could not be started");
}

/// `$VAR` and `${VAR}` come from the bridge's environment, in arguments and environment values.
#[test]
fn the_command_line_is_expanded_from_the_bridges_environment() {
    let mut bridge =
        Bridge::start_with(&pinned_origin(), &[("GEMIPANEL_TEST_WORD", "hello")], None);
    let mut echo = spec(
        "sh",
        &["-c", "printf '{\"jsonrpc\":\"2.0\",\"method\":\"x\",\"params\":[\"%s\",\"%s\"]}\\n' \"$1\" \"$FROM_ENV\"; cat >/dev/null", "sh", "$GEMIPANEL_TEST_WORD/arg"],
    );
    echo.env.insert("FROM_ENV".into(), "${GEMIPANEL_TEST_WORD}-env $UNSET_VARIABLE".into());
    bridge.start_server("sh", echo);
    let params = bridge.recv_until(|m| match m {
        FromBridge::Message { message, .. } => Some(message["params"].clone()),
        _ => None,
    });
    assert_eq!(params, json!(["hello/arg", "hello-env $UNSET_VARIABLE"]));
}

#[test]
fn a_changed_command_line_replaces_the_process() {
    let mut bridge = Bridge::start();
    let old = bridge.start_server("time", time());
    // The same command line again: the running process is kept.
    let confirmed = bridge.resolve(&time()).fingerprint;
    bridge.send(&ToBridge::Start { server: "time".into(), spec: time(), confirmed });
    assert_eq!(bridge.started("time"), old);
    let mut tokyo = time();
    tokyo.args = vec!["--local-timezone".into(), "Asia/Tokyo".into()];
    let confirmed = bridge.resolve(&tokyo).fingerprint;
    bridge.send(&ToBridge::Start { server: "time".into(), spec: tokyo, confirmed });
    let new = bridge.started("time");
    assert_ne!(new, old);
    let exit = bridge.recv_until(|m| match m {
        FromBridge::Exited { exit, .. } => Some(exit.clone()),
        _ => None,
    });
    let stopped = (exit.generation, exit.reason, exit.restart_in_ms);
    assert_eq!(stopped, (old.generation, ExitReason::Stopped, None));
    assert_eq!(new.generation, old.generation + 1);
    assert_eq!(wait_gone(&[old.pid], Duration::from_secs(5)), Vec::<u32>::new());
    let info = bridge.initialize("time");
    assert!(info["serverInfo"]["name"].as_str().unwrap().contains("time"), "{info}");
    assert!(is_alive(new.pid));
}

/// The line the bridge shows is what it will run: `$VAR`s expanded from its environment
/// (secret-looking ones hidden), the variables that change what runs with their values, those
/// it passes on from its own environment too. It starts a server only with the fingerprint of
/// that line, so a line allowed before its expansion changed asks again.
#[test]
fn a_server_runs_only_as_the_line_the_person_allowed() {
    let bridge_env = [
        ("GEMIPANEL_TEST_WORD", "hello"),
        ("GEMIPANEL_TEST_TOKEN", "tok-secret"),
        ("PYTHONPATH", "/opt/bridge-python"),
    ];
    let mut bridge = Bridge::start_with(&pinned_origin(), &bridge_env, None);
    let mut echo = spec(
        "sh",
        &["-c", "printf '{\"jsonrpc\":\"2.0\",\"method\":\"x\",\"params\":[\"%s\",\"%s\"]}\\n' \"$1\" \"$PYTHONPATH\"; cat >/dev/null", "sh", "$GEMIPANEL_TEST_WORD/arg", "--token=$GEMIPANEL_TEST_TOKEN"],
    );
    echo.env.insert("NODE_OPTIONS".into(), "--require ./${GEMIPANEL_TEST_WORD}.js".into());
    echo.env.insert("API_KEY".into(), "sk-secret".into());
    let line = bridge.resolve(&echo);
    let text = line.text();
    assert!(text.starts_with("NODE_OPTIONS='--require ./hello.js' API_KEY=… sh -c"), "{text}");
    assert!(text.ends_with(" sh hello/arg --token=…"), "{text}");
    let inherited: Vec<_> = line.env.iter().filter(|v| v.inherited).collect();
    assert!(
        inherited
            .iter()
            .any(|v| v.name == "PYTHONPATH" && v.value.as_deref() == Some("/opt/bridge-python")),
        "{inherited:?}"
    );
    let shown = serde_json::to_string(&line).unwrap();
    assert!(!shown.contains("tok-secret") && !shown.contains("sk-secret"), "{shown}");
    // The line as configured (what a page shows without the bridge) is not this one.
    let configured = RunLine::configured(&echo).fingerprint;
    bridge.send(&ToBridge::Start {
        server: "sh".into(),
        spec: echo.clone(),
        confirmed: configured,
    });
    match bridge.recv() {
        FromBridge::Error { server, error: BridgeError::NotConfirmed { line: refused } } => {
            assert_eq!(server.as_deref(), Some("sh"));
            assert_eq!(*refused, line);
        }
        other => panic!("expected not_confirmed, got {other:?}"),
    }
    bridge.expect_silence(Duration::from_millis(200));
    // Allowed as shown, it runs, expanded as shown.
    let allowed = line.fingerprint.clone();
    let confirmed = allowed.clone();
    bridge.send(&ToBridge::Start { server: "sh".into(), spec: echo.clone(), confirmed });
    bridge.started("sh");
    let params = bridge.recv_until(|m| match m {
        FromBridge::Message { message, .. } => Some(message["params"].clone()),
        _ => None,
    });
    assert_eq!(params, json!(["hello/arg", "/opt/bridge-python"]));
    // Another bridge (Chrome started again) whose $GEMIPANEL_TEST_TOKEN is another: the same
    // allowed line would run differently, so it does not run.
    let changed = [bridge_env[0], ("GEMIPANEL_TEST_TOKEN", "tok-other"), bridge_env[2]];
    let mut next = Bridge::start_with(&pinned_origin(), &changed, None);
    next.send(&ToBridge::Start { server: "sh".into(), spec: echo, confirmed: allowed });
    match next.recv() {
        FromBridge::Error { error: BridgeError::NotConfirmed { line: again }, .. } => {
            assert_eq!(again.text(), line.text(), "the hidden value changed, not the text");
            assert_ne!(again.fingerprint, line.fingerprint);
        }
        other => panic!("expected not_confirmed, got {other:?}"),
    }
}
