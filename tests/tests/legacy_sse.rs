//! Against `@modelcontextprotocol/server-everything` on the deprecated HTTP+SSE transport
//! (protocol 2024-11-05): the client reaches it through the specification's fallback (the POST
//! fails with a 4xx, a GET opens the stream) and serves every method over the one stream.

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

impl Recorder {
    fn progress(&self) -> Vec<f64> {
        let events = self.events.borrow();
        events
            .iter()
            .filter_map(|e| match e {
                CallEvent::Progress(p) => Some(p.progress),
                _ => None,
            })
            .collect()
    }
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

fn long_operation(duration: f64, steps: u32) -> Value {
    json!({"duration": duration, "steps": steps})
}

#[tokio::test]
async fn falls_back_to_the_sse_transport_and_uses_every_method() {
    let server = TestServer::start(Kind::EverythingLegacySse);
    let client = client(&server);
    let session = client.connect().await.expect("connects through the fallback");
    assert!(session.sse_transport, "{session:?}");
    assert_eq!(session.session_id, None, "the session lives in the endpoint, not a header");
    assert!(LEGACY_VERSIONS.contains(&session.protocol_version.as_str()), "{session:?}");
    assert!(client.server().is_some_and(|s| s.has_capability("tools")));
    client.ping().await.expect("ping");

    let tools = client.list_tools().await.expect("tools/list");
    let names: Vec<&str> = tools.iter().map(|t| t.name.as_str()).collect();
    assert!(names.contains(&"echo") && names.contains(&"trigger-long-running-operation"));

    let echo = client.call_tool("echo", json!({"message": "old"}), &(), None).await.expect("echo");
    assert_eq!(echo.text(), "Echo: old");
    let sum =
        client.call_tool("get-sum", json!({"a": 2, "b": 3}), &(), None).await.expect("get-sum");
    assert!(sum.text().contains('5'), "{}", sum.text());

    let resources = client.list_resources().await.expect("resources/list");
    let first = resources.first().expect("server-everything lists resources");
    let read = client.read_resource(&first.uri, &()).await.expect("resources/read");
    assert_eq!(read.contents[0].uri, first.uri);

    let unknown = client.call_tool("no-such-tool", json!({}), &(), None).await;
    match unknown {
        Ok(r) => assert!(r.is_error(), "an unknown tool is an error result or a JSON-RPC error"),
        Err(e) => assert!(e.rpc_error().is_some(), "{e}"),
    }
    client.close().await.expect("closing drops the stream");
    assert!(client.session().is_none());
}

#[tokio::test]
async fn progress_arrives_as_events() {
    let server = TestServer::start(Kind::EverythingLegacySse);
    let client = client(&server);
    let recorder = Recorder::default();
    let result = client
        .call_tool("trigger-long-running-operation", long_operation(0.3, 3), &recorder, None)
        .await
        .expect("long operation");
    assert!(result.text().contains("completed"), "{result:?}");
    assert_eq!(recorder.progress(), vec![1.0, 2.0, 3.0]);
}

#[tokio::test]
async fn parallel_calls_each_get_their_own_result_and_progress() {
    let server = TestServer::start(Kind::EverythingLegacySse);
    let client = client(&server);
    client.connect().await.expect("connects");
    let (slow, fast) = (Recorder::default(), Recorder::default());
    let started = Instant::now();
    let (long, quick, echo, short) = tokio::join!(
        client.call_tool("trigger-long-running-operation", long_operation(0.8, 4), &slow, None),
        client.call_tool("trigger-long-running-operation", long_operation(0.2, 2), &fast, None),
        client.call_tool("echo", json!({"message": "beside"}), &(), None),
        client.ping(),
    );
    assert!(long.expect("long").text().contains("completed"));
    assert!(quick.expect("quick").text().contains("completed"));
    assert_eq!(echo.expect("echo").text(), "Echo: beside");
    short.expect("ping");
    assert_eq!(slow.progress(), vec![1.0, 2.0, 3.0, 4.0], "only its own progress");
    assert_eq!(fast.progress(), vec![1.0, 2.0]);
    assert!(started.elapsed() < Duration::from_secs(3), "in parallel: {:?}", started.elapsed());
}

#[tokio::test]
async fn elicitation_on_the_stream_reaches_the_call() {
    let server = TestServer::start(Kind::EverythingLegacySse);
    let client = client(&server);
    let mut answer = Map::new();
    answer.insert("name".into(), json!("Grace Hopper"));
    let person = Recorder { answer: Some(answer), ..Recorder::default() };
    let result = client
        .call_tool("trigger-elicitation-request", json!({}), &person, None)
        .await
        .expect("answered");
    assert_eq!(person.asked.borrow().len(), 1);
    assert!(result.text().contains("Grace Hopper"), "{}", result.text());
}

#[tokio::test]
async fn cancel_abandons_the_call_and_the_stream_goes_on() {
    let server = TestServer::start(Kind::EverythingLegacySse);
    let client = client(&server);
    client.connect().await.expect("connects");
    let token = CancelToken::new();
    let started = Instant::now();
    let call = client.call_tool(
        "trigger-long-running-operation",
        long_operation(10.0, 10),
        &(),
        Some(&token),
    );
    let cancel = async {
        tokio::time::sleep(Duration::from_millis(300)).await;
        token.cancel();
    };
    let (result, ()) = tokio::join!(call, cancel);
    assert!(result.expect_err("cancelled").is_cancelled());
    assert!(started.elapsed() < Duration::from_secs(2));
    let echo = client.call_tool("echo", json!({"message": "after"}), &(), None).await;
    assert_eq!(echo.expect("same stream").text(), "Echo: after");
}

#[tokio::test]
async fn a_server_killed_mid_call_fails_every_waiting_call() {
    let mut server = TestServer::start(Kind::EverythingLegacySse);
    let client = client(&server);
    client.connect().await.expect("connects");
    let started = Instant::now();
    let kill = async {
        tokio::time::sleep(Duration::from_millis(300)).await;
        server.kill();
    };
    let (first, second, ()) = tokio::join!(
        client.call_tool("trigger-long-running-operation", long_operation(10.0, 10), &(), None),
        client.call_tool("trigger-long-running-operation", long_operation(10.0, 10), &(), None),
        kill,
    );
    for result in [first, second] {
        let error = result.expect_err("the server died");
        assert!(!error.is_timeout(), "fails at once, not after the timeout: {error}");
    }
    assert!(started.elapsed() < Duration::from_secs(5), "{:?}", started.elapsed());
}

#[tokio::test]
async fn a_stream_that_died_while_idle_is_replaced_before_the_next_request() {
    let mut server = TestServer::start(Kind::EverythingLegacySse);
    let client = client(&server);
    client.call_tool("echo", json!({"message": "one"}), &(), None).await.expect("first stream");
    server.restart();
    // Time passes, as it would in a browser: the client's connection task sees the stream end.
    // (This server never answers a POST for a session it does not know: a request sent into
    // the dead session would wait for its timeout.)
    tokio::time::sleep(Duration::from_millis(200)).await;
    let started = Instant::now();
    let echo = client.call_tool("echo", json!({"message": "two"}), &(), None).await;
    assert_eq!(echo.expect("a new stream, opened before the request").text(), "Echo: two");
    assert!(started.elapsed() < Duration::from_secs(5), "{:?}", started.elapsed());
}

#[tokio::test]
async fn a_saved_session_resumes_without_probing_again() {
    let server = TestServer::start(Kind::EverythingLegacySse);
    let first = client(&server);
    first.connect().await.expect("connects");
    let saved = serde_json::to_string(&first.session()).expect("serialises");
    assert!(saved.contains("\"sseTransport\":true"), "{saved}");
    let state: SessionState = serde_json::from_str(&saved).expect("parses");
    let second =
        Client::with_session(NativeHost::default(), ServerConfig::new(server.url()), state.clone());
    let echo = second.call_tool("echo", json!({"message": "resumed"}), &(), None).await;
    assert_eq!(echo.expect("a new stream for the saved session").text(), "Echo: resumed");
    assert_eq!(second.session(), Some(state));
}
