//! The MCP client: protocol types and a Streamable HTTP client behind [`HttpTransport`].
//!
//! The client speaks protocol 2026-07-28 (stateless, per-request `_meta`) and falls back to the
//! `initialize` handshake of 2025-11-25, 2025-06-18, 2025-03-26 and 2024-11-05 when the server is
//! of the older era, and to the deprecated HTTP+SSE transport (`legacy`) when the URL refuses
//! POSTs. It performs no I/O itself: the host supplies HTTP and a timer.

pub mod apps_extension;
mod authorization;
mod cache;
mod client;
pub mod content;
pub mod elicitation;
pub(crate) mod error;
mod exchange;
mod headers;
mod legacy;
mod listen;
mod negotiate;
pub mod param_headers;
mod prompts;
pub mod reply;
mod resources;
mod session;
mod standalone;
pub mod transport;
pub mod types;
mod watch;

pub use crate::sync::CancelToken;
pub use authorization::{Authorization, ProofOfPossession};
pub use cache::Freshness;
pub use client::{
    CallEvent, CallHandler, Client, ServerConfig, ToolList, MAX_LIST_BYTES, MAX_LIST_PAGES,
};
pub use error::{redact_url, Error};
pub use listen::{ListenEnd, ListenEvent, ListenFilter, Reopen};
pub use prompts::{
    Completion, CompletionRef, GetPromptResult, Prompt, PromptArgument, PromptList, PromptMessage,
    Role, MAX_COMPLETIONS,
};
pub use resources::{ResourcePage, ResourceTemplate, TemplateList, MAX_CURSOR_CHARS};
pub use session::{SessionState, LEGACY_VERSIONS, MODERN_VERSION};
pub use transport::{
    is_header_name, is_header_value, HttpRequest, HttpResponse, HttpTransport, Method,
    ResponseBody, Timer, TransportError,
};
pub use types::*;
