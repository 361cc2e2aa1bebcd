//! Connecting: 2026-07-28's `server/discover` first, then the `initialize` handshake of the
//! earlier versions (and, through `legacy`, the deprecated HTTP+SSE transport), as the
//! specification's backwards-compatibility rules say.

use super::apps_extension;
use super::client::*;
use super::error::{Error, Kind};
use super::session::{SessionState, LEGACY_VERSIONS, MODERN_VERSION};
use super::transport::{HttpTransport, Timer};
use super::types::*;
use crate::jsonrpc::{code, Request};
use serde_json::{json, Map, Value};

impl<T: HttpTransport + Timer> Client<T>
where
    T::Body: 'static,
{
    pub(super) fn client_info(&self) -> Value {
        serde_json::to_value(&self.config.client_info).unwrap_or_default()
    }

    pub(super) fn modern_meta(&self) -> Map<String, Value> {
        let mut meta = Map::new();
        meta.insert("io.modelcontextprotocol/protocolVersion".into(), MODERN_VERSION.into());
        meta.insert("io.modelcontextprotocol/clientInfo".into(), self.client_info());
        meta.insert("io.modelcontextprotocol/clientCapabilities".into(), client_capabilities());
        meta
    }

    // ---- connecting --------------------------------------------------------------------------

    /// Tries the stateless protocol first and falls back to the handshake as the spec says:
    /// a recognised 2026-07-28 error means a modern server, anything else from a 4xx a legacy one.
    pub(super) async fn negotiate(&self) -> Result<SessionState, Error> {
        let modern = SessionState {
            protocol_version: MODERN_VERSION.into(),
            session_id: None,
            sse_transport: false,
        };
        let mut params = Map::new();
        params.insert("_meta".into(), Value::Object(self.modern_meta()));
        let mut retried = false;
        let outcome = loop {
            let probe = Request {
                id: self.fresh_id(),
                method: "server/discover".into(),
                params: Some(Value::Object(params.clone())),
            };
            let outcome = self.exchange(&modern, probe, &()).await;
            match &outcome {
                // Rejected, yet listed as supported: the spec says retry with a supported
                // version, and 2026-07-28 is ours. Once, so a confused server cannot loop us.
                Err(e) if !retried && rejects_yet_supports_modern(e) => retried = true,
                _ => break outcome,
            }
        };
        match outcome {
            Ok(reply) => {
                let discovered: DiscoverResult = self.decode("server/discover", reply.result)?;
                if discovered.supported_versions.iter().any(|v| v == MODERN_VERSION) {
                    *self.server.borrow_mut() = Some(ServerDescription {
                        protocol_version: MODERN_VERSION.into(),
                        server_info: discovered.meta.and_then(|m| m.server_info),
                        capabilities: discovered.capabilities,
                        instructions: discovered.instructions,
                    });
                    *self.session.borrow_mut() = Some(modern.clone());
                    return Ok(modern);
                }
                self.initialize_or_sse().await
            }
            Err(e) => match e.rpc_error().map(|r| r.code) {
                Some(code::UNSUPPORTED_PROTOCOL_VERSION) => {
                    let supported = string_list(
                        e.rpc_error()
                            .and_then(|r| r.data.as_ref())
                            .and_then(|d| d.get("supported")),
                    );
                    if supported.iter().any(|v| LEGACY_VERSIONS.contains(&v.as_str())) {
                        self.initialize_or_sse().await
                    } else {
                        let offered = supported.join(", ");
                        Err(self.error(Kind::UnsupportedVersion { offered }))
                    }
                }
                Some(code::HEADER_MISMATCH | code::MISSING_REQUIRED_CLIENT_CAPABILITY) => Err(e),
                _ if falls_back_to_handshake(&e) => self.initialize_or_sse().await,
                _ => Err(e),
            },
        }
    }

    /// The spec's backwards-compatibility rule: a server that refuses the `initialize` POST with
    /// a 4xx may run the deprecated HTTP+SSE transport, which a GET of the same URL reveals.
    pub(super) async fn initialize_or_sse(&self) -> Result<SessionState, Error> {
        match self.initialize().await {
            Err(e) if e.status().is_some() && falls_back_to_handshake(&e) => {
                self.connect_sse(e).await
            }
            other => other,
        }
    }

    /// The handshake of 2025-11-25 and earlier: `initialize`, then `notifications/initialized`.
    pub(super) async fn initialize(&self) -> Result<SessionState, Error> {
        // No version header on `initialize`: the version is what is being negotiated.
        let reply = self
            .exchange(&unnegotiated(false), self.initialize_request(), &())
            .await
            .map_err(|e| e.with_method("initialize"))?;
        self.finish_initialize(reply.result, reply.session_id, false).await
    }

    pub(super) fn initialize_request(&self) -> Request {
        // Built field by field: `json!` with values in it serialises each through serde again.
        let mut params = Map::new();
        params.insert("protocolVersion".into(), LEGACY_VERSIONS[0].into());
        params.insert("capabilities".into(), client_capabilities());
        params.insert("clientInfo".into(), self.client_info());
        Request { id: self.fresh_id(), method: "initialize".into(), params: Some(params.into()) }
    }

    /// Reads the `initialize` result, sends `notifications/initialized` and keeps the session.
    pub(super) async fn finish_initialize(
        &self,
        result: Value,
        session_id: Option<String>,
        sse_transport: bool,
    ) -> Result<SessionState, Error> {
        let description =
            ServerDescription::from(self.decode::<InitializeResult>("initialize", result)?);
        if !LEGACY_VERSIONS.contains(&description.protocol_version.as_str()) {
            let offered = description.protocol_version.clone();
            return Err(self.error(Kind::UnsupportedVersion { offered }).with_method("initialize"));
        }
        let session = SessionState {
            protocol_version: description.protocol_version.clone(),
            session_id,
            sse_transport,
        };
        *self.server.borrow_mut() = Some(description);
        self.notify(&session, "notifications/initialized", None)
            .await
            .map_err(|e| e.with_method("notifications/initialized"))?;
        *self.session.borrow_mut() = Some(session.clone());
        Ok(session)
    }
}

/// A 4xx other than "sign in" answers the stateless probe of a handshake-era server, and so
/// does a JSON-RPC error that 2026-07-28 does not define (such as "method not found").
fn falls_back_to_handshake(error: &Error) -> bool {
    match error.status() {
        Some(401 | 403) => false,
        Some(status) => (400..500).contains(&status),
        None => matches!(error.kind(), Kind::Rpc(_)),
    }
}

/// An "unsupported protocol version" error whose `supported` list names 2026-07-28.
fn rejects_yet_supports_modern(error: &Error) -> bool {
    error.rpc_error().is_some_and(|rpc| {
        rpc.code == code::UNSUPPORTED_PROTOCOL_VERSION
            && string_list(rpc.data.as_ref().and_then(|d| d.get("supported")))
                .iter()
                .any(|v| v == MODERN_VERSION)
    })
}

fn string_list(value: Option<&Value>) -> Vec<String> {
    value
        .and_then(Value::as_array)
        .map(|items| items.iter().filter_map(Value::as_str).map(str::to_owned).collect())
        .unwrap_or_default()
}

/// Elicitation (form and URL), and the MCP Apps extension: servers may then return tools with
/// a `ui://` app, which the side panel renders.
fn client_capabilities() -> Value {
    json!({
        "elicitation": {"form": {}, "url": {}},
        "extensions": {apps_extension::EXTENSION_ID: {"mimeTypes": [apps_extension::MIME_TYPE]}},
    })
}

/// The `initialize` parameters fix the version; requests before that send no version header.
pub(super) fn unnegotiated(sse_transport: bool) -> SessionState {
    SessionState { protocol_version: "2025-03-26".into(), session_id: None, sse_transport }
}
