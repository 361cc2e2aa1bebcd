//! Against `@modelcontextprotocol/server-everything`: stateful sessions, every reply over SSE.

use gemipanel_core::mcp::*;
use gemipanel_tests::servers::Kind;
use gemipanel_tests::{NativeHost, TestServer};
use serde_json::{json, Map, Value};
use std::cell::RefCell;
use std::time::{Duration, Instant};

fn client(server: &TestServer) -> Client<NativeHost> {
    Client::new(NativeHost::default(), ServerConfig::new(server.url()))
}

#[derive(Default)]
struct Recorder {
    events: RefCell<Vec<CallEvent>>,
    answer: Option<Map<String, Value>>,
    asked: RefCell<Vec<ElicitRequest>>,
}

impl CallHandler for Recorder {
    fn on_event(&self, event: CallEvent) {
        self.events.borrow_mut().push(event);
    }

    async fn elicit(&self, request: ElicitRequest) -> ElicitResult {
        self.asked.borrow_mut().push(request);
        match &self.answer {
            Some(content) => ElicitResult::accept(content.clone()),
            None => ElicitResult::decline(),
        }
    }
}

#[tokio::test]
async fn negotiates_a_session_and_uses_every_method() {
    let server = TestServer::start(Kind::Everything);
    let client = client(&server);
    let session = client.connect().await.expect("connects");
    assert_eq!(session.protocol_version, "2025-11-25");
    assert!(session.session_id.is_some(), "server-everything assigns sessions");
    assert!(client.server().is_some_and(|s| s.has_capability("tools")));
    client.ping().await.expect("ping");

    let tools = client.list_tools().await.expect("tools/list");
    let names: Vec<&str> = tools.iter().map(|t| t.name.as_str()).collect();
    for expected in ["echo", "get-sum", "get-tiny-image", "trigger-long-running-operation"] {
        assert!(names.contains(&expected), "{expected} missing from {names:?}");
    }
    let structured = tools.iter().find(|t| t.name == "get-structured-content").expect("tool");
    assert!(structured.output_schema.is_some());

    let echo = client.call_tool("echo", json!({"message": "hi"}), &(), None).await.expect("echo");
    assert_eq!(echo.text(), "Echo: hi");
    assert!(!echo.is_error());

    let image = client.call_tool("get-tiny-image", json!({}), &(), None).await.expect("image");
    assert!(image
        .content
        .iter()
        .any(|b| b.kind() == "image" && b.mime_type() == Some("image/png")));

    let weather = client
        .call_tool("get-structured-content", json!({"location": "New York"}), &(), None)
        .await
        .expect("structured");
    assert!(weather.structured_content.as_ref().is_some_and(|s| s.get("temperature").is_some()));

    let links = client
        .call_tool("get-resource-links", json!({"count": 2}), &(), None)
        .await
        .expect("links");
    assert!(links.content.iter().any(|b| b.kind() == "resource_link"));

    let resources = client.list_resources().await.expect("resources/list");
    assert!(!resources.is_empty());
    let first = &resources[0];
    let read = client.read_resource(&first.uri, &()).await.expect("resources/read");
    assert_eq!(read.contents[0].uri, first.uri);
    assert!(read.contents[0].text.is_some() || read.contents[0].blob.is_some());

    let unknown = client.call_tool("no-such-tool", json!({}), &(), None).await;
    match unknown {
        Ok(r) => assert!(r.is_error(), "an unknown tool is an error result or a JSON-RPC error"),
        Err(e) => assert!(e.rpc_error().is_some(), "{e}"),
    }
    client.close().await.expect("DELETE ends the session");
    assert!(client.session().is_none());
}

#[tokio::test]
async fn progress_arrives_as_events() {
    let server = TestServer::start(Kind::Everything);
    let client = client(&server);
    let recorder = Recorder::default();
    let result = client
        .call_tool(
            "trigger-long-running-operation",
            json!({"duration": 0.3, "steps": 3}),
            &recorder,
            None,
        )
        .await
        .expect("long operation");
    assert!(result.text().contains("completed"), "{result:?}");
    let progress: Vec<f64> = recorder
        .events
        .borrow()
        .iter()
        .filter_map(|e| match e {
            CallEvent::Progress(p) => Some(p.progress),
            _ => None,
        })
        .collect();
    assert_eq!(progress, vec![1.0, 2.0, 3.0]);
}

#[tokio::test]
async fn cancel_abandons_the_call_quickly() {
    let server = TestServer::start(Kind::Everything);
    let client = client(&server);
    client.connect().await.expect("connects");
    let token = CancelToken::new();
    let started = Instant::now();
    let call = client.call_tool(
        "trigger-long-running-operation",
        json!({"duration": 10, "steps": 10}),
        &(),
        Some(&token),
    );
    let cancel = async {
        tokio::time::sleep(Duration::from_millis(300)).await;
        token.cancel();
    };
    let (result, ()) = tokio::join!(call, cancel);
    let error = result.expect_err("cancelled");
    assert!(error.is_cancelled(), "{error}");
    assert!(started.elapsed() < Duration::from_secs(2));
    // The session is still good after notifications/cancelled.
    client.ping().await.expect("ping after cancel");
}

#[tokio::test]
async fn a_slow_call_times_out() {
    let server = TestServer::start(Kind::Everything);
    let mut config = ServerConfig::new(server.url());
    config.request_timeout = Duration::from_millis(700);
    let client = Client::new(NativeHost::default(), config);
    client.connect().await.expect("connects");
    let error = client
        .call_tool("trigger-long-running-operation", json!({"duration": 5, "steps": 5}), &(), None)
        .await
        .expect_err("times out");
    assert!(error.is_timeout(), "{error}");
    assert!(error.to_string().contains("tools/call"), "{error}");
}

#[tokio::test]
async fn elicitation_is_answered_with_defaults_or_declined() {
    let server = TestServer::start(Kind::Everything);
    let client = client(&server);
    let mut answer = Map::new();
    answer.insert("name".into(), json!("Ada Lovelace"));
    let person = Recorder { answer: Some(answer), ..Recorder::default() };
    let result = client
        .call_tool("trigger-elicitation-request", json!({}), &person, None)
        .await
        .expect("answered");
    let text = result.text();
    assert!(text.contains("Ada Lovelace"), "{text}");
    assert!(text.contains("It was a dark and stormy night."), "schema default applied: {text}");
    assert!(
        matches!(person.asked.borrow()[0], ElicitRequest::Form { ref defaults, .. } if defaults.contains_key("firstLine"))
    );

    let nobody = client
        .call_tool("trigger-elicitation-request", json!({}), &(), None)
        .await
        .expect("declined");
    assert!(nobody.text().to_lowercase().contains("decline"), "{}", nobody.text());
}

#[tokio::test]
async fn a_forgotten_session_is_renewed_once() {
    let mut server = TestServer::start(Kind::Everything);
    let client = client(&server);
    let before = client.connect().await.expect("connects").session_id;
    server.restart();
    let echo =
        client.call_tool("echo", json!({"message": "again"}), &(), None).await.expect("renewed");
    assert_eq!(echo.text(), "Echo: again");
    let after = client.session().and_then(|s| s.session_id);
    assert!(after.is_some() && after != before);
}

#[tokio::test]
async fn a_saved_session_resumes_in_a_new_client() {
    let server = TestServer::start(Kind::Everything);
    let first = client(&server);
    first.connect().await.expect("connects");
    let saved = serde_json::to_string(&first.session()).expect("serialises");
    let state: SessionState = serde_json::from_str(&saved).expect("parses");
    let second =
        Client::with_session(NativeHost::default(), ServerConfig::new(server.url()), state.clone());
    second.ping().await.expect("ping on the resumed session");
    assert_eq!(second.session(), Some(state), "no new handshake happened");
}

#[tokio::test]
async fn a_server_killed_mid_call_fails_the_call() {
    let mut server = TestServer::start(Kind::Everything);
    let client = client(&server);
    client.connect().await.expect("connects");
    let started = Instant::now();
    let call = client.call_tool(
        "trigger-long-running-operation",
        json!({"duration": 10, "steps": 10}),
        &(),
        None,
    );
    let kill = async {
        tokio::time::sleep(Duration::from_millis(300)).await;
        server.kill();
    };
    let (result, ()) = tokio::join!(call, kill);
    let error = result.expect_err("the server died");
    assert!(!error.is_timeout(), "fails at once, not after the timeout: {error}");
    assert!(started.elapsed() < Duration::from_secs(5), "{:?}", started.elapsed());
}
