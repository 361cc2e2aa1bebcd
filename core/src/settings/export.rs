//! The extension's own file format: the stored document plus a marker, secrets left out unless
//! the person asks for them.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::document::{Server, Settings};
use super::secret_args::blank_secret_args;
use crate::secret::Secret;
use crate::web_url;

/// The `format` field of an exported file, which import recognises.
pub const EXPORT_FORMAT: &str = "gemipanel.settings";

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ExportOptions {
    /// Include the API key and header values. Off by default: export files get shared.
    pub include_secrets: bool,
}

/// An export and what it left out.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Export {
    /// Pretty-printed JSON in the export format.
    pub text: String,
    /// Servers whose URL lost its query string (which may carry a key) because secrets were
    /// left out; the person adds it again after importing.
    #[serde(default)]
    pub urls_shortened: Vec<String>,
    /// Arguments of local servers that looked like secrets and were blanked, as
    /// `server: --flag`; the person fills them in after importing.
    #[serde(default)]
    pub args_blanked: Vec<String>,
}

/// `doc` in the export format; "always allow" choices are kept. Without secrets, the API key
/// header and environment values are blanked (names kept, so the person importing sees what to fill in),
/// a server URL's query string is left out, and so are arguments that look like secrets
/// (`secret_args`).
pub fn export(doc: &Settings, options: ExportOptions) -> Export {
    let mut doc = doc.clone();
    let mut urls_shortened = Vec::new();
    let mut args_blanked = Vec::new();
    // A confirmation is this computer's decision, never a file's: an import asks again.
    doc.servers.iter_mut().for_each(Server::forget_confirmation);
    if !options.include_secrets {
        doc.gemini.api_key = None;
        for server in &mut doc.servers {
            server.headers.values_mut().for_each(|value| *value = Secret::default());
            server.oauth.secrets_mut().for_each(|secret| *secret = Secret::default());
            if let Some(local) = &mut server.local {
                *local = local.for_pages();
                let blanked = blank_secret_args(&mut local.args);
                args_blanked
                    .extend(blanked.into_iter().map(|arg| format!("{}: {arg}", server.name)));
            }
            if let Some(url) = web_url::parse(&server.url).filter(|u| u.query.is_some()) {
                server.url = url.without_secrets();
                urls_shortened.push(server.name.clone());
            }
        }
    }
    let mut value = serde_json::to_value(&doc).unwrap_or(Value::Null);
    if let Value::Object(map) = &mut value {
        map.insert("format".into(), Value::String(EXPORT_FORMAT.into()));
    }
    let text = serde_json::to_string_pretty(&value).unwrap_or_default();
    Export { text, urls_shortened, args_blanked }
}
