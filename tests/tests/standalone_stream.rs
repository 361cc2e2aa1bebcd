//! Server requests on the standalone SSE stream (HTTP GET) of a handshake-era session.
//!
//! The TypeScript SDK sends an `elicitation/create` that a tool handler issues without naming
//! its call on that stream (the conformance scenario `elicitation-sep1034-client-defaults` does
//! so). A small scripted server here does the same: it asks on the GET stream, waits for the
//! answer, and only then finishes the tool call.

use gemipanel_core::mcp::*;
use gemipanel_tests::NativeHost;
use serde_json::{json, Map, Value};
use std::sync::Arc;
use std::time::Duration;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::{oneshot, Mutex};

#[derive(Default)]
struct Shared {
    /// The open GET stream, where the server sends its question.
    standalone: Option<TcpStream>,
    gets: usize,
    waiting: Option<oneshot::Sender<Value>>,
}

struct Server {
    url: String,
    shared: Arc<Mutex<Shared>>,
}

impl Server {
    /// `offers_stream: false` answers GET with 405, as servers without the stream must.
    async fn start(offers_stream: bool) -> Server {
        let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
        let url = format!("http://{}/mcp", listener.local_addr().expect("addr"));
        let shared = Arc::new(Mutex::new(Shared::default()));
        let state = shared.clone();
        tokio::spawn(async move {
            while let Ok((socket, _)) = listener.accept().await {
                tokio::spawn(serve(socket, state.clone(), offers_stream));
            }
        });
        Server { url, shared }
    }
}

async fn serve(mut socket: TcpStream, shared: Arc<Mutex<Shared>>, offers_stream: bool) {
    let Some((head, body)) = read_request(&mut socket).await else { return };
    if head.starts_with("GET ") {
        let mut state = shared.lock().await;
        state.gets += 1;
        if !offers_stream {
            drop(state);
            let _ = socket.write_all(&reply(405, "text/plain", "no stream")).await;
            return;
        }
        let head = "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\n\r\n: open\n\n";
        let _ = socket.write_all(head.as_bytes()).await;
        state.standalone = Some(socket);
        return;
    }
    if head.starts_with("DELETE ") {
        let _ = socket.write_all(&reply(200, "text/plain", "")).await;
        return;
    }
    let message: Value = serde_json::from_str(&body).unwrap_or(Value::Null);
    let id = message.get("id").cloned().unwrap_or(Value::Null);
    let answer = match message.get("method").and_then(Value::as_str) {
        // Not a 2026-07-28 server: the client falls back to the handshake.
        Some("server/discover") => reply(400, "text/plain", "unknown method"),
        Some("initialize") => {
            let result = json!({"jsonrpc": "2.0", "id": id, "result": {
                "protocolVersion": "2025-11-25",
                "capabilities": {"tools": {}},
                "serverInfo": {"name": "standalone-test", "version": "1"}
            }});
            reply_with(200, "application/json", "Mcp-Session-Id: s-1\r\n", &result.to_string())
        }
        Some("tools/call") => return tool_call(socket, shared, id).await,
        Some(_) => reply(202, "text/plain", ""),
        // The client's answer to our question.
        None => {
            if let Some(waiting) = shared.lock().await.waiting.take() {
                let _ = waiting.send(message.get("result").cloned().unwrap_or(Value::Null));
            }
            reply(202, "text/plain", "")
        }
    };
    let _ = socket.write_all(&answer).await;
}

/// Asks on the GET stream, waits for the answer, then completes the call with it.
async fn tool_call(mut socket: TcpStream, shared: Arc<Mutex<Shared>>, id: Value) {
    let head = "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nConnection: close\r\n\r\n";
    let _ = socket.write_all(head.as_bytes()).await;
    let (tx, rx) = oneshot::channel();
    let asked = {
        let mut state = shared.lock().await;
        state.waiting = Some(tx);
        let question = json!({"jsonrpc": "2.0", "id": "q-1", "method": "elicitation/create",
            "params": {"message": "Your name?", "requestedSchema": {"type": "object",
                "properties": {"name": {"type": "string", "default": "Ada"}}}}});
        let event = format!("event: message\ndata: {question}\n\n");
        match state.standalone.as_mut() {
            Some(stream) => stream.write_all(event.as_bytes()).await.is_ok(),
            None => false,
        }
    };
    let text = if asked {
        match tokio::time::timeout(Duration::from_secs(5), rx).await {
            Ok(Ok(answer)) => answer.to_string(),
            _ => "no answer".to_owned(),
        }
    } else {
        "no standalone stream to ask on".to_owned()
    };
    let result = json!({"jsonrpc": "2.0", "id": id,
        "result": {"content": [{"type": "text", "text": text}]}});
    let _ = socket.write_all(format!("event: message\ndata: {result}\n\n").as_bytes()).await;
}

async fn read_request(socket: &mut TcpStream) -> Option<(String, String)> {
    let mut data = Vec::new();
    let mut buf = [0u8; 4096];
    let head_end = loop {
        if let Some(i) = data.windows(4).position(|w| w == b"\r\n\r\n") {
            break i + 4;
        }
        let n = socket.read(&mut buf).await.ok().filter(|n| *n > 0)?;
        data.extend_from_slice(&buf[..n]);
    };
    let head = String::from_utf8_lossy(&data[..head_end]).into_owned();
    let length = head
        .lines()
        .find_map(|l| l.to_ascii_lowercase().strip_prefix("content-length:").map(str::to_owned))
        .and_then(|v| v.trim().parse::<usize>().ok())
        .unwrap_or(0);
    while data.len() < head_end + length {
        let n = socket.read(&mut buf).await.ok().filter(|n| *n > 0)?;
        data.extend_from_slice(&buf[..n]);
    }
    Some((head, String::from_utf8_lossy(&data[head_end..]).into_owned()))
}

fn reply(status: u16, content_type: &str, body: &str) -> Vec<u8> {
    reply_with(status, content_type, "", body)
}

fn reply_with(status: u16, content_type: &str, headers: &str, body: &str) -> Vec<u8> {
    format!(
        "HTTP/1.1 {status} X\r\nContent-Type: {content_type}\r\n{headers}Content-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    )
    .into_bytes()
}

struct AcceptEmpty;

impl CallHandler for AcceptEmpty {
    async fn elicit(&self, _request: ElicitRequest) -> ElicitResult {
        ElicitResult::accept(Map::new())
    }
}

fn client(server: &Server) -> Client<NativeHost> {
    let mut config = ServerConfig::new(server.url.clone());
    config.request_timeout = Duration::from_secs(10);
    Client::new(NativeHost::default(), config)
}

#[tokio::test]
async fn a_question_on_the_standalone_stream_reaches_the_calls_handler() {
    let server = Server::start(true).await;
    let client = client(&server);
    for _ in 0..2 {
        let result = client.call_tool("ask", json!({}), &AcceptEmpty, None).await.expect("call");
        // The person filled in nothing; core added the schema's default.
        let answer: Value = serde_json::from_str(&result.text()).expect("the answer as JSON");
        assert_eq!(answer, json!({"action": "accept", "content": {"name": "Ada"}}));
    }
    // One GET for the session, kept open between the calls.
    assert_eq!(server.shared.lock().await.gets, 1);
    client.close().await.expect("close");
}

#[tokio::test]
async fn a_server_without_the_stream_is_asked_for_it_once() {
    let server = Server::start(false).await;
    let client = client(&server);
    for _ in 0..2 {
        let result = client.call_tool("ask", json!({}), &AcceptEmpty, None).await.expect("call");
        assert_eq!(result.text(), "no standalone stream to ask on");
    }
    assert_eq!(server.shared.lock().await.gets, 1);
}
