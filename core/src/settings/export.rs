//! The extension's own file format: the stored document plus a marker, secrets left out unless
//! the user asks for them.

use serde_json::Value;

use super::document::Settings;
use super::secret::Secret;

/// The `format` field of an exported file, which import recognises.
pub const EXPORT_FORMAT: &str = "gemipanel.settings";

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ExportOptions {
    /// Include the API key and header values. Off by default: export files get shared.
    pub include_secrets: bool,
}

/// Pretty-printed JSON of `doc` in the export format; "always allow" choices are kept.
pub fn export(doc: &Settings, options: ExportOptions) -> String {
    let mut doc = doc.clone();
    for server in &mut doc.servers {
        if !options.include_secrets {
            // Names are kept so the person importing sees which headers to fill in.
            for value in server.headers.values_mut() {
                *value = Secret::default();
            }
        }
    }
    if !options.include_secrets {
        doc.gemini.api_key = None;
    }
    let mut value = serde_json::to_value(&doc).unwrap_or(Value::Null);
    if let Value::Object(map) = &mut value {
        map.insert("format".into(), Value::String(EXPORT_FORMAT.into()));
    }
    serde_json::to_string_pretty(&value).unwrap_or_default()
}
