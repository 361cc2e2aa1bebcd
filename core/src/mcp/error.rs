//! The one error type of the MCP client: ask it questions, show its `Display` to the person.

use super::transport::TransportError;
use crate::jsonrpc::ErrorObject;
use crate::text::{Arg, Text};
use std::fmt;
use std::time::Duration;

#[derive(Clone)]
pub struct Error {
    /// Boxed so `Result<_, Error>` stays small on the happy path.
    kind: Box<Kind>,
    /// The server's URL without credentials, query or fragment.
    server: String,
    /// The JSON-RPC method that failed, when one was being sent.
    method: Option<String>,
}

#[derive(Clone, Debug)]
pub(crate) enum Kind {
    Transport(TransportError),
    Timeout(Duration),
    Http {
        status: u16,
        message: Option<String>,
        www_authenticate: Option<String>,
        /// The JSON-RPC error in the body, when there was one.
        rpc: Option<Box<ErrorObject>>,
    },
    NotMcpServer {
        content_type: String,
    },
    Malformed(String),
    TooLarge {
        limit: usize,
    },
    // Boxed: `data` is any JSON, and every `Result<_, Kind>` would carry its size.
    Rpc(Box<ErrorObject>),
    StreamEnded,
    SessionExpired,
    Cancelled,
    UnsupportedVersion {
        offered: String,
    },
    Protocol(Text),
    /// The server's protocol version lacks a feature (named here).
    Unsupported(Text),
    /// The server answered with a redirect (`status`, when the host could see it), which the
    /// client never follows: the request's headers (keys, tokens) would go where it points.
    Redirected {
        status: Option<u16>,
    },
}

impl Error {
    pub(crate) fn new(kind: Kind, server_url: &str) -> Self {
        let kind = match kind {
            Kind::Transport(e) if e.is_redirect() => Kind::Redirected { status: None },
            other => other,
        };
        Error { kind: Box::new(kind), server: redact_url(server_url), method: None }
    }

    /// The server answered with a redirect, which is never followed.
    pub fn is_redirect(&self) -> bool {
        matches!(*self.kind, Kind::Redirected { .. })
    }

    pub(crate) fn with_method(mut self, method: &str) -> Self {
        self.method.get_or_insert_with(|| method.to_owned());
        self
    }

    pub(crate) fn kind(&self) -> &Kind {
        &self.kind
    }

    pub fn is_timeout(&self) -> bool {
        matches!(*self.kind, Kind::Timeout(_))
    }

    /// The server could not be reached at all (down, wrong port, DNS).
    pub fn is_connect(&self) -> bool {
        matches!(&*self.kind, Kind::Transport(e) if e.is_connect())
    }

    /// The HTTP status of a non-success reply.
    pub fn status(&self) -> Option<u16> {
        match *self.kind {
            Kind::Http { status, .. } => Some(status),
            _ => None,
        }
    }

    /// HTTP 401: the server wants authorization (OAuth).
    pub fn is_auth_required(&self) -> bool {
        self.status() == Some(401)
    }

    /// The `WWW-Authenticate` header of a 401 or 403, for OAuth discovery.
    pub fn www_authenticate(&self) -> Option<&str> {
        match &*self.kind {
            Kind::Http { www_authenticate, .. } => www_authenticate.as_deref(),
            _ => None,
        }
    }

    /// The session was unknown to the server even after initializing again.
    pub fn is_session_expired(&self) -> bool {
        matches!(*self.kind, Kind::SessionExpired)
    }

    pub fn is_cancelled(&self) -> bool {
        matches!(*self.kind, Kind::Cancelled)
    }

    /// The URL answered, but with something that is not MCP (an HTML page, say).
    pub fn is_not_mcp_server(&self) -> bool {
        matches!(*self.kind, Kind::NotMcpServer { .. })
    }

    /// The reply was not valid JSON, JSON-RPC or SSE, or did not match the protocol.
    pub fn is_malformed(&self) -> bool {
        matches!(*self.kind, Kind::Malformed(_) | Kind::Protocol(_))
    }

    /// The server's protocol version lacks what was asked for; use the older way instead.
    pub fn is_unsupported(&self) -> bool {
        matches!(*self.kind, Kind::Unsupported(_))
    }

    pub fn is_too_large(&self) -> bool {
        matches!(*self.kind, Kind::TooLarge { .. })
    }

    /// The JSON-RPC error the server answered with (also inside an HTTP error reply).
    pub fn rpc_error(&self) -> Option<&ErrorObject> {
        match &*self.kind {
            Kind::Rpc(e) => Some(e),
            Kind::Http { rpc, .. } => rpc.as_deref(),
            _ => None,
        }
    }
}

impl Error {
    /// What went wrong, in words for a person (see `core::text`), naming the server by its URL.
    pub fn text(&self) -> Text {
        self.worded(("errMcpServer", "errMcpServerMethod"), &self.server)
    }

    /// What went wrong, naming the server by `name`: for a server whose address means nothing
    /// to a person (a local server's `stdio://<id>/`).
    pub fn text_naming(&self, name: &str) -> Text {
        self.worded(("errOnServer", "errOnServerMethod"), name)
    }

    /// `text` (one of the two above, or the worker's `errOnServer` for what the bridge knows)
    /// without the server it names, for a place that shows the server already, such as its own
    /// row in the popup: "server X (method): detail" becomes "method: detail". Any other text
    /// comes back as it is.
    pub fn without_server(text: &Text) -> Text {
        let detail = |arg: &Arg| match arg {
            Arg::Text(text) => text.clone(),
            Arg::Plain(plain) => Text::new("errDetail").arg(plain),
        };
        match (text.key.as_ref(), text.args.as_slice()) {
            ("errMcpServer" | "errOnServer", [_, inner]) => detail(inner),
            ("errMcpServerMethod" | "errOnServerMethod", [_, Arg::Plain(method), inner]) => {
                Text::new("errMethodDetail").arg(method).with(detail(inner))
            }
            _ => text.clone(),
        }
    }

    /// `keys`: without the method and with it.
    fn worded(&self, keys: (&'static str, &'static str), server: &str) -> Text {
        let detail = self.kind.text();
        match &self.method {
            Some(method) => Text::new(keys.1).arg(server).arg(method).with(detail),
            None => Text::new(keys.0).arg(server).with(detail),
        }
    }
}

impl Kind {
    fn text(&self) -> Text {
        match self {
            Kind::Transport(e) if e.is_connect() => Text::new("errMcpConnect").arg(e),
            Kind::Transport(e) => Text::new("errMcpConnectionFailed").arg(e),
            Kind::Timeout(d) => Text::new("errMcpTimeout").arg(d.as_secs_f64()),
            Kind::Http { status, message, .. } => {
                let key = if *status == 401 { "errMcpHttpSignIn" } else { "errMcpHttp" };
                let text = Text::new(key).arg(status);
                match message {
                    Some(m) if !m.is_empty() => Text::new("errWithDetail").with(text).arg(m),
                    _ => text,
                }
            }
            Kind::NotMcpServer { content_type } => Text::new("errMcpNotMcp").arg(content_type),
            Kind::Malformed(what) => Text::new("errMcpMalformed").arg(what),
            Kind::TooLarge { limit } => Text::new("errMcpTooLarge").arg(limit),
            Kind::Rpc(e) => Text::new("errMcpRpc").arg(e.code).arg(&e.message),
            Kind::StreamEnded => Text::new("errMcpStreamEnded"),
            Kind::SessionExpired => Text::new("errMcpSessionExpired"),
            Kind::Cancelled => Text::new("errMcpCancelled"),
            Kind::UnsupportedVersion { offered } => {
                Text::new("errMcpUnsupportedVersion").arg(offered)
            }
            Kind::Protocol(what) => Text::new("errMcpProtocol").with(what.clone()),
            Kind::Unsupported(what) => Text::new("errMcpUnsupported").with(what.clone()),
            Kind::Redirected { status: Some(status) } => {
                Text::new("errMcpRedirectedStatus").arg(status)
            }
            Kind::Redirected { status: None } => Text::new("errMcpRedirected"),
        }
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.text().fmt(f)
    }
}

impl fmt::Debug for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Error")
            .field("kind", &self.kind)
            .field("server", &self.server)
            .field("method", &self.method)
            .finish()
    }
}

impl std::error::Error for Error {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match &*self.kind {
            Kind::Transport(e) => Some(e),
            _ => None,
        }
    }
}

/// A URL fit for messages: no user info, query or fragment (they can hold secrets).
pub fn redact_url(raw: &str) -> String {
    match crate::web_url::parse(raw) {
        Some(url) => url.without_secrets(),
        None => "(invalid URL)".to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn without_server_keeps_the_method_and_the_detail() {
        let refused = Text::new("errMcpConnect").arg("refused");
        let named =
            Text::new("errOnServerMethod").arg("files").arg("tools/list").with(refused.clone());
        let unnamed = Error::without_server(&named);
        assert_eq!(unnamed.to_string(), "tools/list: could not connect: refused");
        assert!(!unnamed.to_string().contains("files"));
        let by_url = Text::new("errMcpServer").arg("https://mcp.example/").with(refused.clone());
        assert_eq!(Error::without_server(&by_url), refused);
        // A plain detail (the worker never makes one, a stored status might) is still said.
        let plain = Text::new("errOnServer").arg("files").arg("gone");
        assert_eq!(Error::without_server(&plain).to_string(), "gone");
        // Anything else is not about a named server.
        assert_eq!(Error::without_server(&refused), refused);
    }

    #[test]
    fn display_names_the_server_without_secrets() {
        let e = Error::new(
            Kind::Http {
                status: 401,
                message: Some("token expired".into()),
                www_authenticate: Some("Bearer resource_metadata=x".into()),
                rpc: None,
            },
            "https://user:pw@example.com/mcp?key=SECRET#frag",
        )
        .with_method("tools/list");
        let text = e.to_string();
        assert_eq!(
            text,
            "MCP server https://example.com/mcp (tools/list): answered HTTP 401 (sign-in required): token expired"
        );
        assert!(!format!("{e:?}").contains("SECRET"));
        assert!(e.is_auth_required());
        assert_eq!(e.www_authenticate(), Some("Bearer resource_metadata=x"));
    }

    /// A local server's address (`stdio://<id>/`) is internal: a person reads its name.
    #[test]
    fn a_server_can_be_named_instead_of_its_address() {
        let rpc = ErrorObject::new(-32601, "Method not found");
        let e = Error::new(Kind::Rpc(Box::new(rpc)), "stdio://srv_0123456789abcdef/");
        assert_eq!(
            e.text_naming("my files").to_string(),
            "server “my files”: error -32601: Method not found"
        );
        let e = e.with_method("resources/read");
        let said = e.text_naming("my files").to_string();
        assert_eq!(said, "server “my files” (resources/read): error -32601: Method not found");
    }
}
