//! The one versioned settings document: Gemini key and model, MCP servers, tool choices.
//!
//! - [`load`] reads what storage holds (any earlier version is migrated) and validates it; a
//!   document that fails is returned inside the error, never replaced.
//! - [`apply`] applies one [`SettingsEdit`]; the worker runs edits one after another, each a
//!   read-modify-write of the stored document.
//! - [`preview_import`] reads an export or another client's MCP configuration (gemini-cli,
//!   Claude Desktop and Code, Cursor, VS Code, Windsurf, Antigravity) into an [`ImportPreview`];
//!   [`export`] writes the own format.
//!
//! Secrets (API key, header values) are [`Secret`]s: redacted in `Debug`, absent from every
//! error message.

mod client;
mod document;
mod edit;
mod export;
mod import;
mod jsonc;
mod load;
mod local;
mod migrate;
mod private_key;
mod secret_args;
pub mod source;
pub mod sync;
mod validate;

pub use crate::secret::Secret;
pub use document::{
    same_name, GeminiSettings, Headers, IdentityProvider, ListedModels, ModelSource, OAuthClient,
    Server, ServerId, Settings, SignInMethod, SourceSettings, ToolNames, CURRENT_VERSION,
    DEFAULT_TIMEOUT_MS,
};
pub use edit::{apply, EditError, ServerDraft, ServerPatch, SettingsEdit, SourceChange};
pub use export::{export, Export, ExportOptions, EXPORT_FORMAT};
pub use import::{
    preview_import, ImportError, ImportPreview, ImportSource, Skipped, MAX_IMPORT_BYTES,
};
pub use jsonc::strip_comments;
pub use load::{load, LoadError, LoadFailure, Loaded};
pub use local::{validate_local, LocalCommand};
pub use migrate::{migrate, version_of, MigrationError};
pub use private_key::{pkcs8_from_pem, KeyProblem};
pub use validate::{
    parse_headers, validate, validate_instructions, validate_server, Field, Invalid,
    MAX_INSTRUCTIONS_CHARS, MAX_SERVERS,
};
