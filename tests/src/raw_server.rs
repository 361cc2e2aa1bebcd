//! A scripted HTTP server on a raw socket, for replies no real MCP server would send.

use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// What to do with one incoming request.
#[derive(Clone, Debug)]
pub enum Script {
    /// Write these bytes (a whole HTTP response, possibly broken) and close.
    Reply(Vec<u8>),
    /// Write these bytes and keep the connection open without finishing.
    Stall(Vec<u8>),
}

impl Script {
    /// A complete response with a body of the given media type.
    pub fn ok(content_type: &str, body: &str) -> Script {
        Script::status(200, content_type, body)
    }

    pub fn status(status: u16, content_type: &str, body: &str) -> Script {
        Script::Reply(
            format!(
                "HTTP/1.1 {status} X\r\nContent-Type: {content_type}\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
                body.len()
            )
            .into_bytes(),
        )
    }

    /// An SSE head followed by `events`, then the connection closes.
    pub fn sse(events: &str) -> Script {
        Script::Reply(format!("HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nConnection: close\r\n\r\n{events}").into_bytes())
    }
}

/// A received request: its head (lower-cased header names) and body.
#[derive(Clone, Debug)]
pub struct Received {
    pub head: String,
    pub body: String,
}

impl Received {
    pub fn header(&self, name: &str) -> Option<String> {
        self.head.lines().find_map(|line| {
            let (n, v) = line.split_once(':')?;
            n.trim().eq_ignore_ascii_case(name).then(|| v.trim().to_owned())
        })
    }
}

pub struct RawServer {
    port: u16,
    received: Arc<Mutex<Vec<Received>>>,
}

impl RawServer {
    /// Answers the n-th request with `scripts[n]` (the last one repeats).
    pub fn start(scripts: Vec<Script>) -> RawServer {
        let listener = TcpListener::bind("127.0.0.1:0").expect("bind loopback");
        let port = listener.local_addr().expect("local addr").port();
        let received = Arc::new(Mutex::new(Vec::new()));
        let log = received.clone();
        std::thread::spawn(move || {
            for (n, stream) in listener.incoming().enumerate() {
                let Ok(stream) = stream else { continue };
                let script = scripts.get(n).or(scripts.last()).cloned();
                let log = log.clone();
                std::thread::spawn(move || serve(stream, script, log));
            }
        });
        RawServer { port, received }
    }

    pub fn url(&self) -> String {
        format!("http://127.0.0.1:{}/mcp", self.port)
    }

    pub fn received(&self) -> Vec<Received> {
        self.received.lock().map(|r| r.clone()).unwrap_or_default()
    }
}

fn serve(mut stream: TcpStream, script: Option<Script>, log: Arc<Mutex<Vec<Received>>>) {
    let _ = stream.set_read_timeout(Some(Duration::from_secs(5)));
    let mut data = Vec::new();
    let mut buf = [0u8; 4096];
    let head_end = loop {
        if let Some(i) = data.windows(4).position(|w| w == b"\r\n\r\n") {
            break i + 4;
        }
        match stream.read(&mut buf) {
            Ok(0) | Err(_) => return,
            Ok(n) => data.extend_from_slice(&buf[..n]),
        }
    };
    let head = String::from_utf8_lossy(&data[..head_end]).into_owned();
    let request = Received { head, body: String::new() };
    let length: usize = request.header("content-length").and_then(|v| v.parse().ok()).unwrap_or(0);
    while data.len() < head_end + length {
        match stream.read(&mut buf) {
            Ok(0) | Err(_) => break,
            Ok(n) => data.extend_from_slice(&buf[..n]),
        }
    }
    let body = String::from_utf8_lossy(&data[head_end..]).into_owned();
    if let Ok(mut log) = log.lock() {
        log.push(Received { body: body.clone(), ..request });
    }
    // Scripts say `$ID` where the reply must echo the request's id.
    let id = serde_json::from_str::<serde_json::Value>(&body)
        .ok()
        .and_then(|v| v.get("id").map(|id| id.to_string()))
        .unwrap_or_else(|| "null".into());
    let script = script.map(|s| match s {
        Script::Reply(b) => Script::Reply(with_id(b, &id)),
        Script::Stall(b) => Script::Stall(with_id(b, &id)),
    });
    match script {
        Some(Script::Reply(bytes)) => {
            let _ = stream.write_all(&bytes);
        }
        Some(Script::Stall(bytes)) => {
            let _ = stream.write_all(&bytes);
            std::thread::sleep(Duration::from_secs(30));
        }
        None => {}
    }
}

/// Replaces `$ID`, fixing up `Content-Length` when the body's size changes.
fn with_id(bytes: Vec<u8>, id: &str) -> Vec<u8> {
    let text = String::from_utf8_lossy(&bytes).into_owned();
    if !text.contains("$ID") {
        return bytes;
    }
    let Some((head, body)) = text.split_once("\r\n\r\n") else {
        return text.replace("$ID", id).into_bytes();
    };
    let body = body.replace("$ID", id);
    let head: Vec<String> = head
        .split("\r\n")
        .map(|line| {
            if line.to_ascii_lowercase().starts_with("content-length:") {
                format!("Content-Length: {}", body.len())
            } else {
                line.to_owned()
            }
        })
        .collect();
    format!("{}\r\n\r\n{body}", head.join("\r\n")).into_bytes()
}
