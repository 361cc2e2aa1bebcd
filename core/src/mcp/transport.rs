//! What the MCP client needs from its host: HTTP exchanges with a streamed body, and a timer.
//!
//! The browser implements these with `fetch` and `setTimeout`, the native tests with reqwest and
//! tokio. Futures are `?Send`: the browser is single-threaded.

use std::fmt;
use std::future::Future;
use std::time::Duration;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Method {
    Get,
    Post,
    Delete,
}

impl Method {
    pub fn as_str(self) -> &'static str {
        match self {
            Method::Get => "GET",
            Method::Post => "POST",
            Method::Delete => "DELETE",
        }
    }
}

/// One HTTP request. `Debug` leaves header values out: they carry tokens and session ids.
#[derive(Clone)]
pub struct HttpRequest {
    pub method: Method,
    pub url: String,
    pub headers: Vec<(String, String)>,
    pub body: Option<String>,
}

impl HttpRequest {
    pub fn header(&self, name: &str) -> Option<&str> {
        find_header(&self.headers, name)
    }
}

impl fmt::Debug for HttpRequest {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let names: Vec<&str> = self.headers.iter().map(|(n, _)| n.as_str()).collect();
        f.debug_struct("HttpRequest")
            .field("method", &self.method)
            .field("url", &super::error::redact_url(&self.url))
            .field("header_names", &names)
            .field("body_bytes", &self.body.as_ref().map_or(0, String::len))
            .finish()
    }
}

/// The head of an HTTP response plus its body, still arriving.
pub struct HttpResponse<B> {
    pub status: u16,
    pub headers: Vec<(String, String)>,
    pub body: B,
}

impl<B> HttpResponse<B> {
    /// Case-insensitive header lookup.
    pub fn header(&self, name: &str) -> Option<&str> {
        find_header(&self.headers, name)
    }
}

fn find_header<'a>(headers: &'a [(String, String)], name: &str) -> Option<&'a str> {
    headers.iter().find(|(n, _)| n.eq_ignore_ascii_case(name)).map(|(_, v)| v.as_str())
}

/// A failure below HTTP: no connection, a reset, a body cut short.
#[derive(Clone, PartialEq, Eq)]
pub struct TransportError {
    connect: bool,
    message: String,
}

impl TransportError {
    /// The server could not be reached at all.
    pub fn connect(message: impl Into<String>) -> Self {
        TransportError { connect: true, message: message.into() }
    }

    /// The exchange started and then broke.
    pub fn io(message: impl Into<String>) -> Self {
        TransportError { connect: false, message: message.into() }
    }

    pub fn is_connect(&self) -> bool {
        self.connect
    }
}

impl fmt::Display for TransportError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl fmt::Debug for TransportError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "TransportError({:?})", self.message)
    }
}

impl std::error::Error for TransportError {}

/// A response body read chunk by chunk.
#[allow(async_fn_in_trait)] // `?Send` on purpose: the browser host is single-threaded.
pub trait ResponseBody {
    /// The next chunk, `Ok(None)` at the end.
    async fn next_chunk(&mut self) -> Result<Option<Vec<u8>>, TransportError>;
}

/// Sends HTTP requests. Dropping a returned future or body aborts that exchange.
#[allow(async_fn_in_trait)]
pub trait HttpTransport {
    type Body: ResponseBody;

    /// Sends the request; resolves once the response head has arrived.
    async fn send(&self, request: HttpRequest) -> Result<HttpResponse<Self::Body>, TransportError>;
}

/// Time, supplied by the host so the client needs no runtime.
pub trait Timer {
    fn sleep(&self, duration: Duration) -> impl Future<Output = ()>;
}
