//! Against the TypeScript SDK's example servers: JSON replies, and SSE replies with sessions.

use gemipanel_core::mcp::*;
use gemipanel_tests::servers::Kind;
use gemipanel_tests::{NativeHost, TestServer};
use serde_json::json;
use std::cell::RefCell;

#[derive(Default)]
struct Events(RefCell<Vec<CallEvent>>);

impl CallHandler for Events {
    fn on_event(&self, event: CallEvent) {
        self.0.borrow_mut().push(event);
    }
}

#[tokio::test]
async fn json_replies_work() {
    let server = TestServer::start(Kind::SdkJson);
    let client = Client::new(NativeHost::default(), ServerConfig::new(server.url()));
    let session = client.connect().await.expect("connects");
    assert!(LEGACY_VERSIONS.contains(&session.protocol_version.as_str()));
    let tools = client.list_tools().await.expect("tools/list");
    assert!(tools.iter().any(|t| t.name == "greet"));
    let greeting =
        client.call_tool("greet", json!({"name": "Rust"}), &(), None).await.expect("greet");
    assert!(greeting.text().contains("Rust"), "{greeting:?}");
    client.ping().await.expect("ping");
    client.close().await.expect("close");
}

#[tokio::test]
async fn sse_replies_and_resources_work() {
    let server = TestServer::start(Kind::SdkSse);
    let client = Client::new(NativeHost::default(), ServerConfig::new(server.url()));
    let session = client.connect().await.expect("connects");
    assert_eq!(session.protocol_version, "2025-11-25");
    assert!(session.session_id.is_some());
    let events = Events::default();
    let result = client
        .call_tool("multi-greet", json!({"name": "Rust"}), &events, None)
        .await
        .expect("multi-greet");
    assert!(result.text().contains("Rust"));
    // Its log messages go to the standalone GET stream, which this client does not open.
    let resources = client.list_resources().await.expect("resources/list");
    let read = client.read_resource(&resources[0].uri, &()).await.expect("read");
    assert!(read.contents[0].text.is_some());
}
