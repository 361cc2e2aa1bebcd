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

/// Whether `name` can be an HTTP header name: an RFC 9110 token.
pub fn is_header_name(name: &str) -> bool {
    let token = |b: u8| b.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(&b);
    !name.is_empty() && name.bytes().all(token)
}

/// Whether a browser's `fetch` can send `value` in a header: no NUL or line break (which would
/// end the header), nothing beyond Latin-1 (header values are bytes).
pub fn is_header_value(value: &str) -> bool {
    !value.chars().any(|c| matches!(c, '\0' | '\r' | '\n') || c > '\u{ff}')
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
    redirect: bool,
    message: String,
}

impl TransportError {
    /// The server could not be reached at all.
    pub fn connect(message: impl Into<String>) -> Self {
        TransportError { connect: true, redirect: false, message: message.into() }
    }

    /// The exchange started and then broke.
    pub fn io(message: impl Into<String>) -> Self {
        TransportError { connect: false, redirect: false, message: message.into() }
    }

    /// The server answered with a redirect the host did not follow (and could not look into:
    /// a browser hides a redirect it was told not to follow).
    pub fn redirect() -> Self {
        TransportError { connect: false, redirect: true, message: "redirected".into() }
    }

    pub fn is_connect(&self) -> bool {
        self.connect
    }

    pub fn is_redirect(&self) -> bool {
        self.redirect
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn header_names_are_tokens_and_values_latin1_on_one_line() {
        for name in ["Authorization", "X-Api-Key", "a!#$%&'*+-.^_`|~9"] {
            assert!(is_header_name(name), "{name}");
        }
        for name in ["", "Bad Name", "Café", "a:b", "x\0"] {
            assert!(!is_header_name(name), "{name:?}");
        }
        for value in ["", "Bearer abc.def", "café ÿ", " spaced "] {
            assert!(is_header_value(value), "{value:?}");
        }
        for value in ["a\nInjected: 1", "a\rb", "nul\0", "snowman ☃", "Ā"] {
            assert!(!is_header_value(value), "{value:?}");
        }
    }
}
