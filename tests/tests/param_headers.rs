//! SEP-2243 over the wire: a 2026-07-28 server's `x-mcp-header` annotations become
//! `Mcp-Param-*` headers on `tools/call`, and a tool with a broken annotation is left out of the
//! list instead of failing it.

use gemipanel_core::mcp::*;
use gemipanel_tests::raw_server::{RawServer, Script};
use gemipanel_tests::NativeHost;
use serde_json::json;
use std::time::Duration;

const DISCOVERED: &str = r#"{"jsonrpc":"2.0","id":$ID,"result":{"resultType":"complete","supportedVersions":["2026-07-28"],"capabilities":{"tools":{}}}}"#;
const TOOLS: &str = r#"{"jsonrpc":"2.0","id":$ID,"result":{"resultType":"complete","tools":[
  {"name":"execute_sql","inputSchema":{"type":"object","properties":{
    "region":{"type":"string","x-mcp-header":"Region"},
    "verbose":{"type":"boolean","x-mcp-header":"Verbose"},
    "query":{"type":"string"}}}},
  {"name":"broken","inputSchema":{"type":"object","properties":{
    "score":{"type":"number","x-mcp-header":"Score"}}}}]}}"#;
const CALLED: &str =
    r#"{"jsonrpc":"2.0","id":$ID,"result":{"resultType":"complete","content":[]}}"#;

#[tokio::test]
async fn annotated_arguments_travel_as_headers_and_broken_tools_are_dropped() {
    let server = RawServer::start(vec![
        Script::ok("application/json", DISCOVERED),
        Script::ok("application/json", TOOLS),
        Script::ok("application/json", CALLED),
    ]);
    let mut config = ServerConfig::new(server.url());
    config.request_timeout = Duration::from_secs(2);
    let client = Client::new(NativeHost::default(), config);
    let tools = client.list_tools().await.expect("tools/list");
    let names: Vec<&str> = tools.iter().map(|t| t.name.as_str()).collect();
    assert_eq!(names, ["execute_sql"]);
    let arguments = json!({"region": " eu ", "verbose": null, "query": "SELECT 1"});
    client.call_tool("execute_sql", arguments, &(), None).await.expect("tools/call");
    let call = &server.received()[2];
    // Leading and trailing spaces cannot travel plainly: Base64 with the sentinel.
    assert_eq!(call.header("mcp-param-region").as_deref(), Some("=?base64?IGV1IA==?="));
    assert_eq!(call.header("mcp-param-verbose"), None, "null sends no header");
    assert_eq!(call.header("mcp-param-query"), None, "unannotated");
}
