//! `GET /v1beta/models`: the pickers' list, which model is the automatic default, and whether a
//! saved model is still offered.
//!
//! The automatic default is the newest stable Flash the list offers for `generateContent`
//! ([`default_model`]): an id of the form `gemini-<version>-flash` (no variant such as `-lite`,
//! `-tts` or `-image`, no pinned or dated suffix), that [`Stage::of`] calls stable and the API does
//! not route elsewhere, with the highest version. Before any list arrived (a first run offline),
//! [`FALLBACK_MODEL`] stands in: the model that rule picks from the last recorded list.

use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use sha2::{Digest, Sha256};

use super::family::{version_of, Family};
use super::routing::{route_of, Fate};

#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ListModelsResponse {
    #[serde(default)]
    pub models: Vec<Model>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub next_page_token: Option<String>,
}

/// One model of the list (https://ai.google.dev/api/models#Model).
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Model {
    /// `models/gemini-3.8-flash`.
    pub name: String,
    /// `001`, or `3-flash-preview-12-2025` for a preview.
    #[serde(default)]
    pub version: String,
    #[serde(default)]
    pub display_name: String,
    #[serde(default)]
    pub description: String,
    #[serde(default)]
    pub supported_generation_methods: Vec<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub input_token_limit: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub output_token_limit: Option<u64>,
    /// Whether the model thinks.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub thinking: Option<bool>,
    // Unknown fields are dropped: a flattened map would make serde buffer every model through
    // its Content tree, ~9 KB of wasm in each page that lists models.
}

impl Model {
    /// The id used in request paths: the name without `models/`.
    pub fn id(&self) -> &str {
        model_id(&self.name)
    }

    pub fn supports_generate_content(&self) -> bool {
        self.supported_generation_methods.iter().any(|m| m == "generateContent")
    }

    pub fn supports_function_calling(&self) -> bool {
        self.family().function_calling
    }

    pub fn family(&self) -> Family {
        Family::of_listed(self.id(), self.thinking)
    }
}

/// Whether a model is a stable release or something that may change or go without notice.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Stage {
    Stable,
    Preview,
}

impl Stage {
    /// Preview when the id, version or display name says preview or experimental, when the id
    /// is a `-latest` alias (it moves to whatever Google points it at, previews included:
    /// changelog 2026-01-21), or when it ends in a date (`-09-2025`, `-1206`): dated ids are
    /// snapshots of previews. Pinned stable versions (`-001`) stay stable.
    pub fn of(model: &Model) -> Stage {
        let id = model.id().to_ascii_lowercase();
        let says = |text: &str| {
            let text = text.to_ascii_lowercase();
            text.contains("preview") || text.contains("experimental")
        };
        let segments: Vec<&str> = id.split('-').collect();
        let digits = |s: &str, n: usize| s.len() == n && s.bytes().all(|b| b.is_ascii_digit());
        let dated = match segments.as_slice() {
            [.., month, year] if digits(month, 2) && digits(year, 4) => true,
            [.., last] => digits(last, 4),
            [] => false,
        };
        if says(&id)
            || says(&model.version)
            || says(&model.display_name)
            || segments.contains(&"exp")
            || id.ends_with("-latest")
            || dated
        {
            Stage::Preview
        } else {
            Stage::Stable
        }
    }
}

/// A chat model as the pickers show it and the pages keep it (`chrome.storage`, so the
/// settings work offline).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ModelInfo {
    /// Without the `models/` prefix, as used in request paths.
    pub id: String,
    pub display_name: String,
    pub stage: Stage,
    /// The context window.
    #[serde(default)]
    pub input_token_limit: Option<u64>,
    /// The list's own word on whether it thinks.
    #[serde(default)]
    pub thinking: Option<bool>,
}

impl From<&Model> for ModelInfo {
    fn from(model: &Model) -> Self {
        let id = model.id().to_owned();
        let display_name =
            if model.display_name.is_empty() { id.clone() } else { model.display_name.clone() };
        ModelInfo {
            id,
            display_name,
            stage: Stage::of(model),
            input_token_limit: model.input_token_limit,
            thinking: model.thinking,
        }
    }
}

impl ModelInfo {
    pub fn family(&self) -> Family {
        Family::of_listed(&self.id, self.thinking)
    }

    pub fn supports_function_calling(&self) -> bool {
        self.family().function_calling
    }
}

/// The model the automatic default uses until a list arrives: what [`default_model`] picks
/// from the list recorded in `core/tests/data/gemini/models.json` (the models page,
/// https://ai.google.dev/gemini-api/docs/models, as of 2026-11-26). A test keeps the two equal;
/// record a newer list to move it.
pub const FALLBACK_MODEL: &str = "gemini-3.8-flash";

/// The newest stable Flash of `models` (see the module documentation).
pub fn default_model(models: &[ModelInfo]) -> Option<&ModelInfo> {
    models
        .iter()
        .filter(|m| m.stage == Stage::Stable && m.family().chat && route_of(&m.id).is_none())
        .filter_map(|m| {
            let version = version_of(&m.id)?;
            let plain = match version {
                (major, 0) if m.id.eq_ignore_ascii_case(&format!("gemini-{major}-flash")) => true,
                (major, minor) => {
                    m.id.eq_ignore_ascii_case(&format!("gemini-{major}.{minor}-flash"))
                }
            };
            plain.then_some((version, m))
        })
        // The first of equal versions, in the list's order.
        .fold(None, |best: Option<((u32, u32), &ModelInfo)>, (version, m)| match best {
            Some((v, _)) if v >= version => best,
            _ => Some((version, m)),
        })
        .map(|(_, m)| m)
}

/// The id the automatic default stands for: from the list when there is one, else
/// [`FALLBACK_MODEL`].
pub fn automatic_model(models: Option<&[ModelInfo]>) -> &str {
    models.and_then(default_model).map_or(FALLBACK_MODEL, |m| m.id.as_str())
}

/// Whether a chosen model can still be used as it is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Availability {
    /// Listed (or there is no list and nothing known against it).
    Offered,
    /// The API serves it with another model: offer that one.
    Routed { to: String },
    /// The API no longer offers it; `replacement` is what to offer instead, when there is one.
    Gone { replacement: Option<String> },
}

/// What to tell the person of model `id` given the last list (`None`: no list yet).
pub fn availability(id: &str, models: Option<&[ModelInfo]>) -> Availability {
    let id = model_id(id);
    let route = route_of(id);
    if let Some(route) = route.filter(|r| r.fate == Fate::Routed) {
        return Availability::Routed { to: route.to.unwrap_or_default().to_owned() };
    }
    let named = route.and_then(|r| r.to);
    match models {
        Some(list) if list.iter().any(|m| m.id.eq_ignore_ascii_case(id)) => Availability::Offered,
        Some(list) => {
            let replacement = named
                .filter(|to| list.iter().any(|m| m.id == *to))
                .or_else(|| default_model(list).map(|m| m.id.as_str()))
                .filter(|to| !to.eq_ignore_ascii_case(id))
                .map(str::to_owned);
            Availability::Gone { replacement }
        }
        None if route.is_some() => {
            Availability::Gone { replacement: Some(named.unwrap_or(FALLBACK_MODEL).to_owned()) }
        }
        None => Availability::Offered,
    }
}

/// The last model list a page received, kept in `chrome.storage.local` under
/// [`KnownModels::STORAGE_KEY`] so the pickers work offline and the automatic default needs no
/// network. Only valid for the API address and the key it was listed with: another key may
/// see other models (its tier, its tuned models).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct KnownModels {
    /// `GeminiSettings::api_base` when it was listed.
    pub api_base: String,
    /// [`KnownModels::key_digest`] of the key it was listed with; a list kept before this
    /// field has none, and counts for no key.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub key_digest: Option<String>,
    pub listed_ms: u64,
    pub models: Vec<ModelInfo>,
}

impl KnownModels {
    pub const STORAGE_KEY: &'static str = "gemini_models";

    /// A list listed from `api_base` with `key` (the key is kept only as its digest).
    pub fn new(api_base: &str, key: &str, listed_ms: u64, models: Vec<ModelInfo>) -> Self {
        KnownModels {
            api_base: api_base.to_owned(),
            key_digest: Some(Self::key_digest(key)),
            listed_ms,
            models,
        }
    }

    /// What tells one key from another in storage without keeping it: its SHA-256, base64url.
    pub fn key_digest(key: &str) -> String {
        URL_SAFE_NO_PAD.encode(Sha256::digest(key.as_bytes()))
    }

    /// The models, when they were listed from `api_base` with `key`.
    pub fn for_source(self, api_base: &str, key: Option<&str>) -> Option<Vec<ModelInfo>> {
        let same_key = key.is_some_and(|key| self.key_digest == Some(Self::key_digest(key)));
        (self.api_base == api_base && same_key).then_some(self.models)
    }
}

/// A context window for a picker: `1,048,576` → `1M`, `131,072` → `128K`.
pub fn token_count_label(tokens: u64) -> String {
    const K: u64 = 1024;
    const M: u64 = 1024 * 1024;
    if tokens >= M {
        let tenths = (tokens * 10 + M / 2) / M;
        if tenths.is_multiple_of(10) {
            format!("{}M", tenths / 10)
        } else {
            format!("{}.{}M", tenths / 10, tenths % 10)
        }
    } else if tokens >= K {
        format!("{}K", (tokens + K / 2) / K)
    } else {
        tokens.to_string()
    }
}

/// More pages than any real key has; a server that keeps sending page tokens is cut off there.
pub const MAX_LIST_PAGES: usize = 20;
/// Per page.
pub const MAX_LIST_BYTES: usize = 4 << 20;

/// Why a page of the model list was refused, with the API's own message and what to do.
/// Callers replace the key in it, should a server have echoed it.
pub fn list_error(status: u16, body: &[u8]) -> String {
    let message = serde_json::from_slice::<Value>(body)
        .ok()
        .and_then(|v| v.pointer("/error/message")?.as_str().map(str::to_owned))
        .unwrap_or_default();
    let hint = match status {
        400 | 401 | 403 => " — check the API key",
        429 => " — too many requests; try again in a minute",
        _ => "",
    };
    format!("the Gemini API answered HTTP {status}: {message}{hint}")
}

/// Strips a leading `models/`.
pub fn model_id(name: &str) -> &str {
    name.strip_prefix("models/").unwrap_or(name)
}

/// The models a text chat can use, in the API's order: those that take `generateContent`,
/// without the speech, image and other specialised models that also do.
pub fn chat_models(models: &[Model]) -> impl Iterator<Item = &Model> {
    models.iter().filter(|m| m.supports_generate_content() && m.family().chat)
}

/// Whether `model` takes function declarations (Gemma models served by the Gemini API reject
/// `tools`; MCP tools are turned off for them with this reason shown).
pub fn supports_function_calling(model: &str) -> bool {
    Family::of(model).function_calling
}
