//! The access token reaches every request through `ServerConfig::authorization`, and a new one
//! (after a refresh) is used from the next request on, in the same session.

use gemipanel_core::mcp::{Client, ServerConfig};
use gemipanel_core::settings::Secret;
use gemipanel_tests::raw_server::{RawServer, Script};
use gemipanel_tests::NativeHost;

const DISCOVERED: &str = r#"{"jsonrpc":"2.0","id":$ID,"result":{"resultType":"complete","supportedVersions":["2026-07-28"],"capabilities":{"tools":{}}}}"#;
const NO_TOOLS: &str =
    r#"{"jsonrpc":"2.0","id":$ID,"result":{"resultType":"complete","tools":[]}}"#;

#[tokio::test]
async fn every_request_carries_the_current_token() {
    let server = RawServer::start(vec![
        Script::ok("application/json", DISCOVERED),
        Script::ok("application/json", NO_TOOLS),
    ]);
    let mut config = ServerConfig::new(server.url());
    // A header the person configured by hand gives way to the sign-in's.
    config.headers.push(("authorization".into(), "Basic old".into()));
    config.headers.push(("X-Api-Key".into(), "k".into()));
    let authorization = config.authorization.clone();
    authorization.set(Some(Secret::new("Bearer first")));
    let client = Client::new(NativeHost::default(), config);
    client.connect().await.expect("discovers");
    client.list_tools().await.expect("tools/list");
    authorization.set(Some(Secret::new("Bearer second")));
    client.list_tools().await.expect("tools/list");
    authorization.set(None);
    client.list_tools().await.expect("tools/list");

    let seen: Vec<Option<String>> =
        server.received().iter().map(|r| r.header("authorization")).collect();
    assert_eq!(
        seen,
        vec![
            Some("Bearer first".to_string()),
            Some("Bearer first".to_string()),
            Some("Bearer second".to_string()),
            Some("Basic old".to_string()),
        ]
    );
    assert!(server.received().iter().all(|r| r.header("x-api-key").as_deref() == Some("k")));
    assert!(server.received().iter().all(|r| r.head.matches("uthorization").count() == 1));
    assert_eq!(format!("{:?}", authorization), "Authorization(none)");
}
