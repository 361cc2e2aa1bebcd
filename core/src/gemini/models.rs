//! `GET /v1beta/models`: the model picker's list, and what each model can do.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

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
    #[serde(flatten)]
    pub extra: Map<String, Value>,
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
