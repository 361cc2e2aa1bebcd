//! Upgrading stored documents of earlier schema versions, one version at a time.
//!
//! Each step is a pure function from the JSON of version N to the JSON of version N + 1. Steps
//! work on `serde_json::Value`, not on the current structs, so an old step keeps working when
//! the structs change. Adding version 3: write `v2_to_v3`, append it to [`STEPS`] and bump
//! `CURRENT_VERSION`.
//!
//! Version 1 is what the prototype stored, gemini-cli style, with servers keyed by name:
//! `{ "geminiApiKey": "…", "model": "…", "mcpServers": { "<name>": { "url": "…", "headers": {…} } } }`
//! It had no `version` field.

use serde_json::{Map, Value};

use super::document::{ServerId, CURRENT_VERSION, DEFAULT_MODEL, DEFAULT_TIMEOUT_MS};
use super::validate::quoted;
use crate::url_policy;
use crate::web_url;

type Step = fn(Value) -> Result<Value, String>;

/// `STEPS[i]` turns version `i + 1` into version `i + 2`.
const STEPS: [Step; 1] = [v1_to_v2];

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

impl std::fmt::Display for MigrationError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            MigrationError::NotAnObject => f.write_str("the stored settings are not a JSON object"),
            MigrationError::BadVersion => f.write_str("the stored settings have an invalid version number"),
            MigrationError::Newer(v) => write!(
                f,
                "the stored settings are version {v}, written by a newer GemiPanel (this one reads up to version {CURRENT_VERSION})"
            ),
            MigrationError::Step { from, message } => write!(
                f,
                "the stored settings of version {from} could not be upgraded: {message}"
            ),
        }
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

// Read by hand rather than with a derived decoder: this runs once per install, and the derive
// was a large share of the worker's settings loading code.
fn v1_to_v2(mut doc: Value) -> Result<Value, String> {
    // Kept as raw JSON so a mistyped key is reported by the current schema's secret-safe reader.
    let api_key = doc.get_mut("geminiApiKey").map(Value::take);
    let model = match doc.get_mut("model").map(Value::take) {
        None | Some(Value::Null) => None,
        Some(Value::String(model)) => Some(model),
        Some(_) => return Err("`model` must be a string".into()),
    };
    let v1_servers = match doc.get_mut("mcpServers").map(Value::take) {
        None | Some(Value::Null) => Map::new(),
        Some(Value::Object(servers)) => servers,
        Some(_) => return Err("`mcpServers` must be an object".into()),
    };
    let mut servers = Vec::new();
    for (name, mut server) in v1_servers {
        let url = match server.get_mut("url").map(Value::take) {
            Some(Value::String(url)) => url,
            Some(_) => return Err(format!("in server {}: `url` must be a string", quoted(&name))),
            None => return Err(format!("in server {}: missing field `url`", quoted(&name))),
        };
        let headers = match server.get_mut("headers").map(Value::take) {
            None | Some(Value::Null) => Value::Object(Map::new()),
            Some(headers) => headers,
        };
        // The prototype had no "local network" tick: a private address it stored was chosen
        // by the user, so the tick is set for it rather than the server being dropped.
        let local_network =
            web_url::parse(url.trim()).is_some_and(|u| url_policy::needs_local_network(&u));
        servers.push(object([
            ("id", ServerId::derive(b"v1", &name).as_str().into()),
            ("name", name.trim().into()),
            ("url", url.trim().into()),
            ("headers", headers),
            ("timeout_ms", DEFAULT_TIMEOUT_MS.into()),
            ("trust", false.into()),
            ("exclude_tools", Value::Array(Vec::new())),
            ("enabled_by_default", true.into()),
            ("local_network", local_network.into()),
            ("allowed_tools", Value::Array(Vec::new())),
        ]));
    }
    let mut gemini = Map::new();
    if let Some(key) = api_key.filter(|k| k.as_str() != Some("")) {
        gemini.insert("api_key".into(), key);
    }
    let model = model.filter(|m| !m.trim().is_empty());
    gemini
        .insert("model".into(), Value::String(model.unwrap_or_else(|| DEFAULT_MODEL.to_string())));
    Ok(object([
        ("version", 2u64.into()),
        ("gemini", Value::Object(gemini)),
        ("servers", Value::Array(servers)),
    ]))
}

/// A JSON object from its fields. In place of `json!`, which encodes every value that is not a
/// literal with `serde_json::to_value(..).unwrap()`, and so brings Debug-formatting into the
/// worker.
fn object<const N: usize>(fields: [(&str, Value); N]) -> Value {
    Value::Object(fields.into_iter().map(|(name, value)| (name.to_owned(), value)).collect())
}

/// Wording for a serde error that cannot leak a value: serde quotes unexpected string values
/// ("invalid type: string \"sk-…\""), so everything between the first and last quote goes.
pub(crate) fn safe_serde_message(e: &serde_json::Error) -> String {
    let text = e.to_string();
    match (text.find('"'), text.rfind('"')) {
        (Some(a), Some(b)) if a < b => format!("{}\"…\"{}", &text[..a], &text[b + 1..]),
        _ => text,
    }
}
