//! Replies no good server sends, from a scripted socket: every one ends in an error value.

use gemipanel_core::mcp::*;
use gemipanel_tests::raw_server::{RawServer, Script};
use gemipanel_tests::NativeHost;
use serde_json::json;
use std::time::Duration;

const DISCOVERED: &str = r#"{"jsonrpc":"2.0","id":$ID,"result":{"resultType":"complete","supportedVersions":["2026-07-28"],"capabilities":{"tools":{}}}}"#;
const LEGACY_PROBE_REJECTED: &str = r#"{"jsonrpc":"2.0","id":null,"error":{"code":-32000,"message":"Bad Request: No valid session ID provided"}}"#;

fn client_for(server: &RawServer) -> Client<NativeHost> {
    let mut config = ServerConfig::new(server.url());
    config.request_timeout = Duration::from_secs(2);
    Client::new(NativeHost::default(), config)
}

fn initialized(session: &str) -> Script {
    let body = r#"{"jsonrpc":"2.0","id":$ID,"result":{"protocolVersion":"2025-06-18","capabilities":{},"serverInfo":{"name":"raw","version":"0"}}}"#;
    Script::Reply(format!("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nMcp-Session-Id: {session}\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}", body.len()).into_bytes())
}

fn accepted() -> Script {
    Script::Reply(
        b"HTTP/1.1 202 Accepted\r\nContent-Length: 0\r\nConnection: close\r\n\r\n".to_vec(),
    )
}

#[tokio::test]
async fn an_html_page_is_not_an_mcp_server() {
    let server = RawServer::start(vec![Script::ok("text/html", "<!doctype html><p>Welcome")]);
    let error = client_for(&server).connect().await.expect_err("HTML");
    assert!(error.is_not_mcp_server(), "{error}");
    assert!(error.to_string().contains("not an MCP server"), "{error}");
}

#[tokio::test]
async fn html_behind_a_json_header_is_not_mcp_either() {
    let server = RawServer::start(vec![Script::ok("application/json", "<html>login</html>")]);
    let error = client_for(&server).connect().await.expect_err("HTML");
    assert!(error.is_not_mcp_server(), "{error}");
}

#[tokio::test]
async fn garbage_json_is_malformed() {
    let server = RawServer::start(vec![Script::ok(
        "application/json",
        "{\"jsonrpc\":\"2.0\",\"id\":1,\"res",
    )]);
    let error = client_for(&server).connect().await.expect_err("garbage");
    assert!(error.is_malformed(), "{error}");
    assert!(error.to_string().contains("malformed"), "{error}");
}

#[tokio::test]
async fn truncated_sse_ends_the_call_with_an_error() {
    let server = RawServer::start(vec![
        Script::ok("application/json", DISCOVERED),
        Script::sse("event: message\ndata: {\"jsonrpc\":\"2.0\",\"id\":2,\"res"),
    ]);
    let client = client_for(&server);
    let error = client.call_tool("x", json!({}), &(), None).await.expect_err("truncated");
    assert!(error.to_string().contains("ended before the result"), "{error}");
}

#[tokio::test]
async fn http_errors_keep_the_servers_words_and_auth_challenge() {
    let server = RawServer::start(vec![Script::status(500, "text/plain", "database is down")]);
    let error = client_for(&server).connect().await.expect_err("500");
    assert_eq!(error.status(), Some(500));
    assert!(error.to_string().contains("HTTP 500: database is down"), "{error}");

    let challenge = "Bearer resource_metadata=\"http://x/.well-known/oauth-protected-resource\"";
    let reply = format!("HTTP/1.1 401 Unauthorized\r\nWWW-Authenticate: {challenge}\r\nContent-Length: 0\r\nConnection: close\r\n\r\n");
    let server = RawServer::start(vec![Script::Reply(reply.into_bytes())]);
    let error = client_for(&server).connect().await.expect_err("401");
    assert!(error.is_auth_required());
    assert_eq!(error.www_authenticate(), Some(challenge));
}

#[tokio::test]
async fn secrets_in_headers_never_show() {
    let server = RawServer::start(vec![Script::status(403, "text/plain", "forbidden")]);
    let mut config = ServerConfig::new(format!("{}?key=SECRET1", server.url()));
    config.headers.push(("Authorization".into(), "Bearer SECRET2".into()));
    let client = Client::new(NativeHost::default(), config);
    let error = client.connect().await.expect_err("403");
    let shown = format!("{error} {error:?} {:?}", client.config());
    assert!(!shown.contains("SECRET"), "{shown}");
    assert_eq!(server.received()[0].header("authorization").as_deref(), Some("Bearer SECRET2"));
}

#[tokio::test]
async fn an_oversized_reply_is_refused() {
    let big = format!(r#"{{"jsonrpc":"2.0","id":1,"result":{{"pad":"{}"}}}}"#, "x".repeat(4096));
    let server = RawServer::start(vec![Script::ok("application/json", &big)]);
    let mut config = ServerConfig::new(server.url());
    config.max_reply_bytes = 1024;
    let error = Client::new(NativeHost::default(), config).connect().await.expect_err("too large");
    assert!(error.is_too_large(), "{error}");
}

#[tokio::test]
async fn a_silent_server_times_out() {
    let server = RawServer::start(vec![Script::Stall(
        b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\n\r\n: hi\n\n".to_vec(),
    )]);
    let mut config = ServerConfig::new(server.url());
    config.request_timeout = Duration::from_millis(300);
    let error = Client::new(NativeHost::default(), config).connect().await.expect_err("silent");
    assert!(error.is_timeout(), "{error}");
}

#[tokio::test]
async fn nothing_listening_is_a_connect_error() {
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .unwrap_or(9);
    let client = Client::new(
        NativeHost::default(),
        ServerConfig::new(format!("http://127.0.0.1:{port}/mcp")),
    );
    let error = client.connect().await.expect_err("refused");
    assert!(error.is_connect(), "{error}");
}

#[tokio::test]
async fn modern_requests_carry_metadata_headers() {
    let server = RawServer::start(vec![
        Script::ok("application/json", DISCOVERED),
        Script::ok("application/json", r#"{"jsonrpc":"2.0","id":$ID,"result":{"content":[]}}"#),
    ]);
    let client = client_for(&server);
    client.call_tool("héllo", json!({}), &(), None).await.expect("call");
    let call = &server.received()[1];
    assert_eq!(call.header("mcp-protocol-version").as_deref(), Some("2026-07-28"));
    assert_eq!(call.header("mcp-method").as_deref(), Some("tools/call"));
    assert_eq!(call.header("mcp-name").as_deref(), Some("=?base64?aMOpbGxv?="));
    assert!(call.header("mcp-session-id").is_none());
    let body: serde_json::Value = serde_json::from_str(&call.body).expect("JSON body");
    assert_eq!(body["params"]["_meta"]["io.modelcontextprotocol/protocolVersion"], "2026-07-28");
    let capabilities = &body["params"]["_meta"]["io.modelcontextprotocol/clientCapabilities"];
    assert!(capabilities["elicitation"].is_object(), "{capabilities}");
    // Apps render in the chat (issue 13): the MCP Apps extension and its one resource type.
    assert_eq!(
        capabilities["extensions"]["io.modelcontextprotocol/ui"]["mimeTypes"],
        json!(["text/html;profile=mcp-app"]),
        "{capabilities}"
    );
}

#[tokio::test]
async fn unsupported_version_error_with_legacy_list_falls_back() {
    let rejected = r#"{"jsonrpc":"2.0","id":1,"error":{"code":-32022,"message":"Unsupported protocol version","data":{"supported":["2025-06-18"]}}}"#;
    let server = RawServer::start(vec![
        Script::status(400, "application/json", rejected),
        initialized("s-1"),
        accepted(),
        Script::ok("application/json", r#"{"jsonrpc":"2.0","id":$ID,"result":{}}"#),
    ]);
    let client = client_for(&server);
    client.ping().await.expect("ping after fallback");
    assert_eq!(client.session().map(|s| s.protocol_version), Some("2025-06-18".into()));
    let ping = &server.received()[3];
    assert_eq!(ping.header("mcp-session-id").as_deref(), Some("s-1"));
    assert_eq!(ping.header("mcp-protocol-version").as_deref(), Some("2025-06-18"));
}

#[tokio::test]
async fn a_broken_sse_reply_is_resumed_with_last_event_id() {
    let server = RawServer::start(vec![
        Script::status(400, "application/json", LEGACY_PROBE_REJECTED),
        initialized("s-9"),
        accepted(),
        // The session's standalone stream, opened before a tool call: this server has none.
        Script::status(405, "text/plain", ""),
        Script::sse("id: ev-1\nretry: 50\ndata: \n\n"),
        // A GET has no id to echo: the call's id is 1, the first the client handed out.
        Script::sse("id: ev-2\ndata: {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"content\":[{\"type\":\"text\",\"text\":\"resumed\"}]}}\n\n"),
    ]);
    let client = client_for(&server);
    let result = client.call_tool("slow", json!({}), &(), None).await.expect("resumed");
    assert_eq!(result.content, vec![ContentBlock::text_block("resumed")]);
    let get = &server.received()[5];
    assert!(get.head.starts_with("GET "), "{}", get.head);
    assert_eq!(get.header("last-event-id").as_deref(), Some("ev-1"));
    assert_eq!(get.header("mcp-session-id").as_deref(), Some("s-9"));
}

#[tokio::test]
async fn modern_errors_do_not_fall_back() {
    let mismatch =
        r#"{"jsonrpc":"2.0","id":1,"error":{"code":-32020,"message":"Header mismatch"}}"#;
    let server = RawServer::start(vec![Script::status(400, "application/json", mismatch)]);
    let error = client_for(&server).connect().await.expect_err("mismatch");
    assert_eq!(error.rpc_error().map(|e| e.code), Some(-32020));
    assert_eq!(server.received().len(), 1, "no initialize after a modern error");
}

/// Two first requests at once open one session: the second waits for the first's discovery
/// instead of probing the server again (issue 11).
#[tokio::test]
async fn concurrent_first_requests_open_one_session() {
    let listed =
        r#"{"jsonrpc":"2.0","id":$ID,"result":{"resultType":"complete","tools":[{"name":"a"}]}}"#;
    let server = RawServer::start(vec![
        Script::ok("application/json", DISCOVERED),
        Script::ok("application/json", listed),
    ]);
    let client = client_for(&server);
    let (a, b) = tokio::join!(client.list_tools(), client.list_tools());
    assert_eq!(a.expect("first").len(), 1);
    assert_eq!(b.expect("second").len(), 1);
    let probes =
        server.received().iter().filter(|r| r.body.contains("\"server/discover\"")).count();
    assert_eq!(probes, 1, "{:?}", server.received());
}

/// A tools/list page with one malformed tool lists the others and names the bad one.
#[tokio::test]
async fn one_malformed_tool_leaves_the_others_listed() {
    let listed = r#"{"jsonrpc":"2.0","id":$ID,"result":{"resultType":"complete","tools":[{"name":"good"},{"name":"bad","inputSchema":"nope"}]}}"#;
    let server = RawServer::start(vec![
        Script::ok("application/json", DISCOVERED),
        Script::ok("application/json", listed),
    ]);
    let list = client_for(&server).list_tools_cacheable().await.expect("listed");
    let names: Vec<&str> = list.tools.iter().map(|t| t.name.as_str()).collect();
    assert_eq!(names, ["good"]);
    assert_eq!(list.invalid.len(), 1);
    assert_eq!(list.invalid[0].name.as_deref(), Some("bad"));
    assert!(list.invalid[0].reason.to_string().contains(": inputSchema"), "{:?}", list.invalid);
}

/// A server that redirects is refused, and the redirect is not followed with the server's
/// headers (issue 11: a configured server could bounce its secrets to any loopback service).
#[tokio::test]
async fn a_redirect_is_refused_and_not_followed() {
    let target = RawServer::start(vec![Script::ok("application/json", DISCOVERED)]);
    let redirect = format!(
        "HTTP/1.1 307 Temporary Redirect\r\nLocation: {}\r\nContent-Length: 0\r\nConnection: close\r\n\r\n",
        target.url()
    );
    let server = RawServer::start(vec![Script::Reply(redirect.into_bytes())]);
    let mut config = ServerConfig::new(server.url());
    config.headers = vec![("X-Api-Key".into(), "FAKE-redirected".into())];
    config.request_timeout = Duration::from_secs(2);
    let error = Client::new(NativeHost::default(), config).connect().await.expect_err("refused");
    assert!(error.is_redirect(), "{error}");
    assert!(error.to_string().contains("does not follow"), "{error}");
    assert!(target.received().is_empty(), "followed to {:?}", target.received());
}

/// One tools/list page with one tool, pointing at `next`.
fn tools_page(tool: &str, next: Option<&str>) -> Script {
    let next = next.map(|c| format!(r#","nextCursor":"{c}""#)).unwrap_or_default();
    Script::ok(
        "application/json",
        &format!(
            r#"{{"jsonrpc":"2.0","id":$ID,"result":{{"resultType":"complete","tools":[{{"name":"{tool}"}}]{next}}}}}"#
        ),
    )
}

/// A server whose cursors cycle (A, B, A, B…) is asked for each page once: the list ends at the
/// repeat, with the tools so far and a note that it was cut (issue 11).
#[tokio::test]
async fn a_repeating_cursor_ends_the_list() {
    let server = RawServer::start(vec![
        Script::ok("application/json", DISCOVERED),
        tools_page("first", Some("A")),
        tools_page("second", Some("B")),
        // From here on every page points back at A, and would forever.
        tools_page("third", Some("A")),
    ]);
    let list = client_for(&server).list_tools_cacheable().await.expect("listed");
    let names: Vec<&str> = list.tools.iter().map(|t| t.name.as_str()).collect();
    assert_eq!(names, ["first", "second", "third"]);
    assert_eq!(list.invalid.len(), 1, "{:?}", list.invalid);
    assert_eq!(list.invalid[0].name, None);
    assert!(list.invalid[0].reason.to_string().contains("cursor"), "{:?}", list.invalid);
    let cursors: Vec<Option<String>> = server.received()[1..]
        .iter()
        .map(|r| serde_json::from_str::<serde_json::Value>(&r.body).expect("JSON"))
        .map(|body| body["params"]["cursor"].as_str().map(str::to_owned))
        .collect();
    assert_eq!(cursors, [None, Some("A".into()), Some("B".into())]);
}

/// A server with endless distinct cursors is asked for MAX_LIST_PAGES pages, no more; the list
/// so far comes back with a note that names the cap (issue 11).
#[tokio::test]
async fn endless_pages_end_at_the_cap() {
    let mut scripts = vec![Script::ok("application/json", DISCOVERED)];
    for n in 0..MAX_LIST_PAGES + 50 {
        scripts.push(tools_page(&format!("t{n}"), Some(&format!("c{n}"))));
    }
    let server = RawServer::start(scripts);
    let list = client_for(&server).list_tools_cacheable().await.expect("listed");
    assert_eq!(list.tools.len(), MAX_LIST_PAGES);
    assert_eq!(list.tools.last().map(|t| t.name.clone()), Some(format!("t{}", MAX_LIST_PAGES - 1)));
    assert_eq!(list.invalid.len(), 1, "{:?}", list.invalid);
    assert!(
        list.invalid[0].reason.to_string().contains(&MAX_LIST_PAGES.to_string()),
        "{:?}",
        list.invalid
    );
    assert_eq!(server.received().len(), 1 + MAX_LIST_PAGES);
}
