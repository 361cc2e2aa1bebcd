//! GemiPanel's protocols and domain logic.
//!
//! Nothing in this crate performs I/O or knows about browsers: protocols are state machines fed
//! with bytes, responses and the current time, returning what to send and what to show. The
//! service worker and the pages drive them in the browser; the native tests drive them directly.

pub mod apps;
pub mod backoff;
pub mod branches;
pub mod chats;
pub mod deadlines;
pub mod decode;
pub mod first_run;
pub mod gemini;
pub mod hash;
pub mod json_pieces;
pub mod jsonrpc;
pub mod mcp;
pub mod mentions;
pub mod menu;
pub mod messages;
pub mod native;
pub mod oauth;
pub mod page;
pub mod reset;
pub mod resource_updates;
pub mod saved_session;
pub mod secret;
pub mod secret_words;
pub mod server_status;
pub mod settings;
pub mod slash;
pub mod sse;
pub mod sync;
pub mod text;
pub mod tool_cache;
pub mod tools;
pub mod url_policy;
pub mod vault;
pub mod web_url;
pub mod whats_new;
