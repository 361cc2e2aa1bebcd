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
//! * [`model_context`]: what an app adds to the model's context, bounded and quoted as the
//!   app's data.
//! * [`legacy`]: the older GemiHub messages, for apps that never initialize.
//! * [`frame_wire`]: the panel's messages with the sandbox page and the app host module.

pub mod csp;
pub mod document;
pub mod frame_wire;
pub mod legacy;
pub mod model_context;
pub mod protocol;
pub mod resource;
pub mod session;
pub mod view_tools;

/// The protocol version this host speaks.
pub const PROTOCOL_VERSION: &str = "2026-01-26";

// Defined with the MCP client, which declares the extension in `initialize`.
pub use crate::mcp::apps_extension::{EXTENSION_ID, MIME_TYPE};

pub use mount::AppSetup;

/// The composer's text once an app's `ui/message` is offered there: what the person was typing
/// stays, and the app's text follows it after a blank line. Nothing the person typed is lost.
pub fn composer_with_message(typed: &str, offered: &str) -> String {
    let typed = typed.trim_end();
    if typed.trim_start().is_empty() {
        return offered.to_owned();
    }
    format!("{typed}\n\n{offered}")
}

mod mount {
    use std::rc::Rc;

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
        /// Shared: the panel hands over its copy without copying the HTML, and the app host
        /// keeps one copy for the views of the same app (`one_copy` there).
        pub resource: Rc<AppResource>,
        #[serde(default)]
        pub result: Option<CallToolResult>,
        #[serde(default)]
        pub cancelled: bool,
    }
}

#[cfg(test)]
mod tests {
    use super::composer_with_message;

    #[test]
    fn an_offered_message_follows_what_the_person_typed() {
        let cases = [
            ("", "Bump it again", "Bump it again"),
            ("  \n", "Bump it again", "Bump it again"),
            ("My words", "Bump it again", "My words\n\nBump it again"),
            ("  indented\nlines\n\n", "Bump", "  indented\nlines\n\nBump"),
            ("Twice", "a\n\nb", "Twice\n\na\n\nb"),
        ];
        for (typed, offered, composer) in cases {
            assert_eq!(composer_with_message(typed, offered), composer, "{typed:?} + {offered:?}");
        }
    }
}
