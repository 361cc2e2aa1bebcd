//! The MCP Apps extension as the client declares it in `capabilities.extensions` (SEP-1724).
//! Everything else of MCP Apps lives a layer up, in `crate::apps`.

/// The extension's name in `capabilities.extensions`.
pub const EXTENSION_ID: &str = "io.modelcontextprotocol/ui";

/// The MIME type of an app's HTML resource.
pub const MIME_TYPE: &str = "text/html;profile=mcp-app";
