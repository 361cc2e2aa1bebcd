//! GemiPanel's protocols and domain logic.
//!
//! Nothing in this crate performs I/O or knows about browsers: protocols are state machines fed
//! with bytes, responses and the current time, returning what to send and what to show. The
//! service worker and the pages drive them in the browser; the native tests drive them directly.

pub mod deadlines;
pub mod gemini;
mod json_object;
pub mod jsonrpc;
pub mod mcp;
pub mod messages;
pub mod native;
pub mod saved_session;
pub mod settings;
pub mod sse;
pub mod tools;
pub mod url_policy;
pub mod web_url;
