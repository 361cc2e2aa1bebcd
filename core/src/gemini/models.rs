//! `GET /v1beta/models`: the model picker's list, and what each model can do.

use serde::{Deserialize, Serialize};
use serde_json::Value;

#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ListModelsResponse {
    #[serde(default)]
    pub models: Vec<Model>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub next_page_token: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Model {
    /// `models/gemini-2.5-flash`.
    pub name: String,
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
        supports_function_calling(&self.name)
    }
}

/// A model as the pickers show it.
#[derive(Debug, Clone, PartialEq)]
pub struct ModelInfo {
    /// Without the `models/` prefix, as used in request paths.
    pub id: String,
    pub display_name: String,
    pub supports_function_calling: bool,
}

impl From<&Model> for ModelInfo {
    fn from(model: &Model) -> Self {
        let id = model.id().to_owned();
        let display_name =
            if model.display_name.is_empty() { id.clone() } else { model.display_name.clone() };
        ModelInfo { id, display_name, supports_function_calling: model.supports_function_calling() }
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

/// The models a chat can use, in the API's order.
pub fn chat_models(models: &[Model]) -> impl Iterator<Item = &Model> {
    models.iter().filter(|m| m.supports_generate_content())
}

/// Gemma models served by the Gemini API reject `tools` (and `systemInstruction`); MCP tools are
/// turned off for them with this reason shown.
pub fn supports_function_calling(model: &str) -> bool {
    !model_id(model).to_ascii_lowercase().starts_with("gemma")
}
