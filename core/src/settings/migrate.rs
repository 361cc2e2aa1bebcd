//! Upgrading stored documents of earlier schema versions, one version at a time.
//!
//! Each step is a pure function from the JSON of version N to the JSON of version N + 1. Steps
//! read their input with types of that version's own (never the current structs), so an old
//! step keeps working when the structs change. Adding version 4: write `v3_to_v4`, append it to
//! [`STEPS`] and bump `CURRENT_VERSION`.
//!
//! Version 3 moved the cached tool lists (`cached_tools`) out of the document: the worker keeps
//! them under keys of their own, bounded in size. Version 4 added a server's sign-in client,
//! version 5 local (stdio) servers. Version 6 made the model optional: absent is the automatic
//! default (the newest stable Flash of the model list); every new document used to be written
//! with `gemini-2.5-flash`, the old default, which the API has since closed to new users, so a
//! stored `gemini-2.5-flash` becomes the automatic default. Another model the person chose
//! stays (the pages offer its replacement when the API no longer lists it).
//!
//! Version 1 is what the prototype stored, gemini-cli style, with servers keyed by name:
//! `{ "geminiApiKey": "…", "model": "…", "mcpServers": { "<name>": { "url": "…", "headers": {…} } } }`
//! It had no `version` field.

use indexmap::IndexMap;
use serde::Deserialize;
use serde_json::{json, Map, Value};

use super::document::{ServerId, CURRENT_VERSION, DEFAULT_TIMEOUT_MS};
use crate::text::Text;
use crate::url_policy;
use crate::web_url;

type Step = fn(Value) -> Result<Value, String>;

/// `STEPS[i]` turns version `i + 1` into version `i + 2`.
const STEPS: [Step; 5] = [v1_to_v2, v2_to_v3, v3_to_v4, v4_to_v5, v5_to_v6];

/// The model every document of versions 2 to 5 was created with.
const OLD_DEFAULT_MODEL: &str = "gemini-2.5-flash";

// A step per version below the current one, checked at compile time.
const _: () = assert!(STEPS.len() as u64 == CURRENT_VERSION - 1);

/// Why a document could not be brought to the current version.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum MigrationError {
    NotAnObject,
    /// `version` is present but not a positive integer.
    BadVersion,
    /// Written by a newer GemiPanel; never downgrade it.
    Newer(u64),
    /// A step failed; the message says what it could not read.
    Step {
        from: u64,
        message: String,
    },
}

impl MigrationError {
    pub fn text(&self) -> Text {
        match self {
            MigrationError::NotAnObject => Text::new("errSettingsNotObject"),
            MigrationError::BadVersion => Text::new("errSettingsBadVersion"),
            MigrationError::Newer(v) => Text::new("errSettingsNewer").arg(v).arg(CURRENT_VERSION),
            MigrationError::Step { from, message } => {
                Text::new("errSettingsUpgrade").arg(from).arg(message)
            }
        }
    }
}

impl std::fmt::Display for MigrationError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.text().fmt(f)
    }
}

/// The version a stored document declares; documents without one are version 1.
pub fn version_of(doc: &Value) -> Result<u64, MigrationError> {
    let obj = doc.as_object().ok_or(MigrationError::NotAnObject)?;
    match obj.get("version") {
        None => Ok(1),
        Some(v) => match v.as_u64() {
            Some(n) if n >= 1 => Ok(n),
            _ => Err(MigrationError::BadVersion),
        },
    }
}

/// Runs every step from the document's version up to the current one. Returns the upgraded
/// JSON and the version it started from.
pub fn migrate(doc: Value) -> Result<(Value, u64), MigrationError> {
    let from = version_of(&doc)?;
    if from > CURRENT_VERSION {
        return Err(MigrationError::Newer(from));
    }
    let mut doc = doc;
    for (i, step) in STEPS.iter().enumerate().skip((from - 1) as usize) {
        let version = i as u64 + 1;
        doc = step(doc).map_err(|message| MigrationError::Step { from: version, message })?;
    }
    Ok((doc, from))
}

/// The prototype's document (version 1).
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct V1Document {
    /// Kept as raw JSON so a mistyped key is reported by the current schema's secret-safe
    /// reader, never quoted here.
    #[serde(default)]
    gemini_api_key: Option<Value>,
    #[serde(default)]
    model: Option<String>,
    #[serde(default)]
    mcp_servers: Option<IndexMap<String, V1Server>>,
}

#[derive(Deserialize)]
struct V1Server {
    url: String,
    /// Raw JSON for the same reason as the key: header values are secrets.
    #[serde(default)]
    headers: Option<Value>,
}

fn v1_to_v2(doc: Value) -> Result<Value, String> {
    let doc: V1Document = crate::decode::from_value("version 1", doc).map_err(|e| e.to_string())?;
    let mut servers = Vec::new();
    for (name, server) in doc.mcp_servers.unwrap_or_default() {
        let url = server.url.trim();
        // The prototype had no "local network" tick: a private address it stored was chosen
        // by the user, so the tick is set for it rather than the server being dropped.
        let local_network =
            web_url::parse(url).is_some_and(|u| url_policy::needs_local_network(&u));
        servers.push(json!({
            "id": ServerId::derive(b"v1", &name).as_str(),
            "name": name.trim(),
            "url": url,
            "headers": server.headers.unwrap_or_else(|| json!({})),
            "timeout_ms": DEFAULT_TIMEOUT_MS,
            "trust": false,
            "exclude_tools": [],
            "enabled_by_default": true,
            "local_network": local_network,
            "allowed_tools": [],
        }));
    }
    let mut gemini = Map::new();
    if let Some(key) = doc.gemini_api_key.filter(|k| k.as_str() != Some("") && !k.is_null()) {
        gemini.insert("api_key".into(), key);
    }
    let model = doc.model.filter(|m| !m.trim().is_empty());
    gemini.insert("model".into(), model.unwrap_or_else(|| OLD_DEFAULT_MODEL.to_owned()).into());
    Ok(json!({"version": 2, "gemini": gemini, "servers": servers}))
}

/// Version 4 adds what needs no upgrade (a server's optional sign-in client); the number says
/// that an older GemiPanel cannot read it.
fn v3_to_v4(mut doc: Value) -> Result<Value, String> {
    if let Some(fields) = doc.as_object_mut() {
        fields.insert("version".into(), 4.into());
    }
    Ok(doc)
}

/// Version 5 adds local servers (`local`, `confirmed_command`); nothing to upgrade.
fn v4_to_v5(mut doc: Value) -> Result<Value, String> {
    if let Some(fields) = doc.as_object_mut() {
        fields.insert("version".into(), 5.into());
    }
    Ok(doc)
}

/// Version 6: the old default model (or none) becomes the automatic default (no `model`).
fn v5_to_v6(mut doc: Value) -> Result<Value, String> {
    if let Some(gemini) = doc.get_mut("gemini").and_then(Value::as_object_mut) {
        let model = gemini.get("model").and_then(Value::as_str).map(str::trim);
        if matches!(model, Some("") | Some(OLD_DEFAULT_MODEL))
            || gemini.get("model") == Some(&Value::Null)
        {
            gemini.shift_remove("model");
        }
    }
    if let Some(fields) = doc.as_object_mut() {
        fields.insert("version".into(), 6.into());
    }
    Ok(doc)
}

/// Version 3 keeps cached tool lists outside the document.
fn v2_to_v3(mut doc: Value) -> Result<Value, String> {
    if let Some(servers) = doc.get_mut("servers").and_then(Value::as_array_mut) {
        for server in servers.iter_mut().filter_map(Value::as_object_mut) {
            server.shift_remove("cached_tools");
        }
    }
    if let Some(fields) = doc.as_object_mut() {
        fields.insert("version".into(), 3.into());
    }
    Ok(doc)
}
