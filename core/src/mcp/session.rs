//! Protocol versions and the state a client keeps between requests (and across restarts).

use serde::{Deserialize, Serialize};

/// The stateless protocol version this client prefers.
pub const MODERN_VERSION: &str = "2026-07-28";

/// Handshake-era versions, newest first; the first is offered in `initialize`.
pub const LEGACY_VERSIONS: [&str; 4] = ["2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"];

/// What the worker persists (in `chrome.storage.session`) to resume after a restart.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SessionState {
    /// The negotiated protocol version.
    pub protocol_version: String,
    /// `Mcp-Session-Id` of a handshake-era session, when the server assigned one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub session_id: Option<String>,
    /// The server speaks the deprecated HTTP+SSE transport (protocol 2024-11-05): messages go to
    /// an endpoint it names on a GET stream. The endpoint dies with that stream, so only this
    /// flag is kept: a resumed client opens a new stream without probing Streamable HTTP again.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub sse_transport: bool,
}

impl SessionState {
    /// Stateless (2026-07-28 and later): no handshake, metadata on every request.
    pub fn is_modern(&self) -> bool {
        is_modern(&self.protocol_version)
    }

    /// Whether requests carry the `MCP-Protocol-Version` header (defined since 2025-06-18).
    pub fn sends_version_header(&self) -> bool {
        self.protocol_version.as_str() >= "2025-06-18"
    }
}

/// Dated versions compare as strings.
pub(crate) fn is_modern(version: &str) -> bool {
    version >= MODERN_VERSION
}

pub(crate) fn is_supported(version: &str) -> bool {
    version == MODERN_VERSION || LEGACY_VERSIONS.contains(&version)
}
