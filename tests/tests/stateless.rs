//! Against a stateless protocol 2026-07-28 server built on the official v2 SDK.

use gemipanel_core::mcp::*;
use gemipanel_tests::servers::Kind;
use gemipanel_tests::{NativeHost, TestServer};
use serde_json::{json, Map};
use std::cell::RefCell;

struct Person {
    name: Option<&'static str>,
    progress: RefCell<Vec<f64>>,
}

impl CallHandler for Person {
    fn on_event(&self, event: CallEvent) {
        if let CallEvent::Progress(p) = event {
            self.progress.borrow_mut().push(p.progress);
        }
    }

    async fn elicit(&self, _request: ElicitRequest) -> ElicitResult {
        match self.name {
            Some(name) => {
                let mut content = Map::new();
                content.insert("name".into(), json!(name));
                ElicitResult::accept(content)
            }
            None => ElicitResult::decline(),
        }
    }
}

#[tokio::test]
async fn speaks_2026_07_28_without_a_session() {
    let server = TestServer::start(Kind::Stateless2026);
    let client = Client::new(NativeHost::default(), ServerConfig::new(server.url()));
    let session = client.connect().await.expect("discovers");
    assert_eq!(
        session,
        SessionState {
            protocol_version: MODERN_VERSION.into(),
            session_id: None,
            sse_transport: false
        }
    );
    assert_eq!(
        client.server().and_then(|s| s.name().map(str::to_owned)).as_deref(),
        Some("stateless-2026")
    );
    client.ping().await.expect("ping");
    let tools = client.list_tools().await.expect("tools/list");
    assert_eq!(
        tools.len(),
        8,
        "echo, add, count, greet, add_tool, close_subscriptions, add_prompt, touch_notes"
    );
    let echo = client.call_tool("echo", json!({"message": "x"}), &(), None).await.expect("echo");
    assert_eq!(echo.text(), "Echo: x");
    let sum = client.call_tool("add", json!({"a": 2, "b": 3}), &(), None).await.expect("add");
    assert_eq!(sum.structured_content.as_ref(), Some(&json!({"sum": 5})));
    let read = client.read_resource("test://readme", &()).await.expect("read");
    assert_eq!(read.contents[0].text.as_deref(), Some("read me"));
    assert_eq!(client.list_resources().await.expect("list").len(), 2, "readme, notes");
}

#[tokio::test]
async fn progress_and_input_required_rounds() {
    let server = TestServer::start(Kind::Stateless2026);
    let client = Client::new(NativeHost::default(), ServerConfig::new(server.url()));
    let person = Person { name: Some("Ada"), progress: RefCell::new(Vec::new()) };
    let counted = client.call_tool("count", json!({"to": 3}), &person, None).await.expect("count");
    assert_eq!(counted.text(), "counted to 3");
    assert_eq!(*person.progress.borrow(), vec![1.0, 2.0, 3.0]);

    let greeting = client.call_tool("greet", json!({}), &person, None).await.expect("greet");
    assert!(greeting.text().starts_with("Hello, Ada!"), "default applied: {}", greeting.text());
    let nobody = client.call_tool("greet", json!({}), &(), None).await.expect("declined");
    assert_eq!(nobody.text(), "declined: decline");
}
