//! MCP Apps, the host side: the `io.modelcontextprotocol/ui` extension (specification
//! 2026-01-26, SDK `@modelcontextprotocol/ext-apps` 1.x and 2.x).
//!
//! * [`resource`]: a tool's UI resource (`ui://…`, `text/html;profile=mcp-app`) and its
//!   `_meta.ui` (CSP, permissions, border), read from a `resources/read` result.
//! * [`csp`]: the Content-Security-Policy an app runs under, made from what it declares; never
//!   wider than the restrictive default plus the declared, well-formed origins.
//! * [`document`]: the app's HTML with that policy (and a shim for the storage, cookies and
//!   IndexedDB an opaque origin lacks) placed before any of its own markup.
//! * [`protocol`]: one type per message of the protocol, both directions.
//! * [`session`]: one app's conversation with the host (sans-IO): what to answer, what to ask
//!   the person or the worker, what to send once the app has initialized.
//! * [`view_tools`]: the app's own tools, which the host lists and calls (`tools/list`,
//!   `tools/call` to the app).
//! * [`legacy`]: the older GemiHub messages, for apps that never initialize.

pub mod csp;
pub mod document;
pub mod legacy;
pub mod protocol;
pub mod resource;
pub mod session;
pub mod view_tools;

/// The protocol version this host speaks.
pub const PROTOCOL_VERSION: &str = "2026-01-26";

/// The extension's name in `capabilities.extensions` (SEP-1724).
pub const EXTENSION_ID: &str = "io.modelcontextprotocol/ui";

/// The MIME type of an app's HTML resource.
pub const MIME_TYPE: &str = "text/html;profile=mcp-app";

pub use mount::AppSetup;

mod mount {
    use serde::{Deserialize, Serialize};
    use serde_json::{Map, Value};

    use super::resource::AppResource;
    use crate::mcp::CallToolResult;

    /// What the side panel hands the app host (the lazily loaded `apphost` module) to show one
    /// app: the tool call, its app, and what the call has produced so far.
    #[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
    #[serde(rename_all = "camelCase")]
    pub struct AppSetup {
        pub call_id: String,
        pub server_name: String,
        pub tool_name: String,
        /// The tool's definition (`toolInfo.tool` of the host context).
        pub tool: Value,
        pub input: Map<String, Value>,
        pub resource: AppResource,
        #[serde(default)]
        pub result: Option<CallToolResult>,
        #[serde(default)]
        pub cancelled: bool,
    }
}
