//! The page beside the chat: what GemiPanel reads of the person's tabs, and how it reaches
//! the model. Pure parts only; the side panel carries them out with `chrome.scripting` and
//! `chrome.tabs` (`gemipanel_browser::page`).
//!
//! Everything that comes from a page (its text, a selection, a screenshot, a WebMCP tool's
//! answer) is untrusted: it reaches the model quoted, with its origin, never as the person's
//! words ([`context`]), and after it a tool that writes asks first ([`crate::tools::confirm`]).

pub mod access;
pub mod browser_tools;
pub mod context;
pub mod context_menu;
pub mod extract;
pub mod find;
pub mod paging;
pub mod screenshot;
pub mod tab;
pub mod webmcp;
