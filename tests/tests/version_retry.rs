//! A 2026-07-28 server that rejects the first request with "unsupported protocol version" while
//! listing 2026-07-28 as supported: the client retries once, as the spec asks (the conformance
//! scenario `request-metadata` does exactly this).

use gemipanel_core::mcp::*;
use gemipanel_tests::raw_server::{RawServer, Script};
use gemipanel_tests::NativeHost;
use std::time::Duration;

const REJECTED: &str = r#"{"jsonrpc":"2.0","id":$ID,"error":{"code":-32022,"message":"Unsupported protocol version","data":{"supported":["2026-07-28"],"requested":"2026-07-28"}}}"#;
const DISCOVERED: &str = r#"{"jsonrpc":"2.0","id":$ID,"result":{"resultType":"complete","supportedVersions":["2026-07-28"],"capabilities":{"tools":{}}}}"#;

fn client_for(server: &RawServer) -> Client<NativeHost> {
    let mut config = ServerConfig::new(server.url());
    config.request_timeout = Duration::from_secs(2);
    Client::new(NativeHost::default(), config)
}

#[tokio::test]
async fn a_rejected_but_supported_version_is_tried_again_once() {
    let server = RawServer::start(vec![
        Script::status(400, "application/json", REJECTED),
        Script::ok("application/json", DISCOVERED),
    ]);
    let session = client_for(&server).connect().await.expect("connects on the retry");
    assert_eq!(session.protocol_version, MODERN_VERSION);
    let received = server.received();
    assert_eq!(received.len(), 2);
    let ids: Vec<serde_json::Value> = received
        .iter()
        .map(|r| serde_json::from_str::<serde_json::Value>(&r.body).expect("JSON")["id"].clone())
        .collect();
    assert_ne!(ids[0], ids[1], "a retry is a new request");
}

#[tokio::test]
async fn a_second_rejection_is_an_error() {
    let server = RawServer::start(vec![Script::status(400, "application/json", REJECTED)]);
    let error = client_for(&server).connect().await.expect_err("rejected twice");
    assert!(error.to_string().contains("2026-07-28"), "{error}");
    assert_eq!(server.received().len(), 2, "one retry, not a loop");
}
