//! MCP protocol types the client reads and writes, for every supported protocol version.
//!
//! Fields added by newer versions are optional, so one set of types reads all of them. Unknown
//! fields are ignored; `_meta` objects are kept as raw JSON for whoever needs them.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// `clientInfo` / `serverInfo`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Implementation {
    pub name: String,
    #[serde(default)]
    pub version: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ToolAnnotations {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub read_only_hint: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub destructive_hint: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub idempotent_hint: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub open_world_hint: Option<bool>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Tool {
    pub name: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    #[serde(default = "empty_object_schema")]
    pub input_schema: Value,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub output_schema: Option<Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub annotations: Option<ToolAnnotations>,
    #[serde(default, rename = "_meta", skip_serializing_if = "Option::is_none")]
    pub meta: Option<Value>,
}

impl CallToolResult {
    /// The text blocks of the result, joined: what a tool "said".
    pub fn text(&self) -> String {
        self.content.iter().filter_map(ContentBlock::text).collect()
    }
}

fn empty_object_schema() -> Value {
    serde_json::json!({"type": "object"})
}

/// Who may see a tool, from `_meta.ui.visibility` of the MCP Apps extension.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Visibility {
    Model,
    App,
}

impl Tool {
    /// `_meta.ui.resourceUri`: the `ui://` resource holding this tool's MCP App, if any.
    pub fn ui_resource_uri(&self) -> Option<&str> {
        let ui = self.meta.as_ref()?.get("ui")?;
        ui.get("resourceUri").and_then(Value::as_str)
    }

    /// `_meta.ui.visibility`; absent means both the model and apps may use the tool.
    pub fn visibility(&self) -> Vec<Visibility> {
        let listed = self
            .meta
            .as_ref()
            .and_then(|m| m.get("ui"))
            .and_then(|ui| ui.get("visibility"))
            .and_then(Value::as_array);
        match listed {
            None => vec![Visibility::Model, Visibility::App],
            Some(items) => items
                .iter()
                .filter_map(|v| match v.as_str() {
                    Some("model") => Some(Visibility::Model),
                    Some("app") => Some(Visibility::App),
                    _ => None,
                })
                .collect(),
        }
    }
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ListToolsResult {
    #[serde(default)]
    pub tools: Vec<Tool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub next_cursor: Option<String>,
}

/// The text or base64 payload of a resource.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ResourceContents {
    pub uri: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mime_type: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub text: Option<String>,
    /// Base64, as sent; decode with the `base64` crate when needed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub blob: Option<String>,
    #[serde(default, rename = "_meta", skip_serializing_if = "Option::is_none")]
    pub meta: Option<Value>,
}

/// One block of tool output (text, image, audio, resource, resource_link, or a type newer than
/// this client), kept as the server sent it. The worker forwards results to the pages, so
/// annotations, `_meta` and unknown block types must survive; a typed enum would also give the
/// worker's wasm serde's buffering decoder for internally tagged enums.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(transparent)]
pub struct ContentBlock(pub Value);

impl ContentBlock {
    pub fn text_block(text: impl Into<String>) -> Self {
        ContentBlock(serde_json::json!({"type": "text", "text": text.into()}))
    }

    /// `text`, `image`, `audio`, `resource`, `resource_link`, …; empty when the block has none.
    pub fn kind(&self) -> &str {
        self.str_field("type").unwrap_or_default()
    }

    /// The text of a `text` block.
    pub fn text(&self) -> Option<&str> {
        (self.kind() == "text").then(|| self.str_field("text")).flatten()
    }

    /// The MIME type of an `image` or `audio` block (and of a resource link that names one).
    pub fn mime_type(&self) -> Option<&str> {
        self.str_field("mimeType")
    }

    fn str_field(&self, name: &str) -> Option<&str> {
        self.0.get(name).and_then(Value::as_str)
    }
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CallToolResult {
    #[serde(default)]
    pub content: Vec<ContentBlock>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub structured_content: Option<Value>,
    #[serde(default)]
    pub is_error: bool,
    #[serde(default, rename = "_meta", skip_serializing_if = "Option::is_none")]
    pub meta: Option<Value>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Resource {
    pub uri: String,
    #[serde(default)]
    pub name: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mime_type: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub size: Option<u64>,
    #[serde(default, rename = "_meta", skip_serializing_if = "Option::is_none")]
    pub meta: Option<Value>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ListResourcesResult {
    #[serde(default)]
    pub resources: Vec<Resource>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub next_cursor: Option<String>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ReadResourceResult {
    #[serde(default)]
    pub contents: Vec<ResourceContents>,
}

/// What the server told about itself, from `initialize` or `server/discover`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ServerDescription {
    pub protocol_version: String,
    #[serde(default)]
    pub server_info: Implementation,
    #[serde(default)]
    pub capabilities: Value,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub instructions: Option<String>,
}

impl ServerDescription {
    pub fn has_capability(&self, name: &str) -> bool {
        self.capabilities.get(name).is_some_and(|c| !c.is_null())
    }
}

/// A `notifications/progress` for a request of ours.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Progress {
    pub progress_token: Value,
    pub progress: f64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub total: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
}

/// What a server asks the person for (`elicitation/create`).
#[derive(Clone, Debug, PartialEq)]
pub enum ElicitRequest {
    /// Fill in a form. `defaults` holds the schema's `default` values, for pre-filling.
    Form { message: String, requested_schema: Value, defaults: Map<String, Value> },
    /// Open a URL out of band (sign-in, payment); the server learns the outcome by itself.
    Url {
        message: String,
        url: String,
        /// 2025-11-25 names each URL elicitation; 2026-07-28 keeps it in `requestState` instead.
        elicitation_id: Option<String>,
    },
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ElicitAction {
    Accept,
    Decline,
    Cancel,
}

/// The person's answer to an [`ElicitRequest`].
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ElicitResult {
    pub action: ElicitAction,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub content: Option<Map<String, Value>>,
}

impl ElicitResult {
    pub fn accept(content: Map<String, Value>) -> Self {
        ElicitResult { action: ElicitAction::Accept, content: Some(content) }
    }

    pub fn decline() -> Self {
        ElicitResult { action: ElicitAction::Decline, content: None }
    }

    pub fn cancel() -> Self {
        ElicitResult { action: ElicitAction::Cancel, content: None }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn tool_results_reach_the_pages_as_the_server_sent_them() {
        let wire = json!({
            "content": [
                {"type": "text", "text": "hi", "annotations": {"audience": ["user"]}},
                {"type": "image", "data": "iVBO", "mimeType": "image/png", "_meta": {"k": 1}},
                {"type": "resource_link", "uri": "test://a", "name": "a", "mimeType": "text/plain"},
                {"type": "hologram", "frames": 3},
            ],
            "isError": false,
        });
        let result: CallToolResult = serde_json::from_value(wire.clone()).unwrap();
        assert_eq!(serde_json::to_value(&result).unwrap()["content"], wire["content"]);
        let kinds: Vec<&str> = result.content.iter().map(ContentBlock::kind).collect();
        assert_eq!(kinds, ["text", "image", "resource_link", "hologram"]);
        assert_eq!(result.text(), "hi");
        assert_eq!(result.content[1].mime_type(), Some("image/png"));
        assert_eq!(result.content[1].text(), None);
        assert_eq!(ContentBlock::text_block("x").text(), Some("x"));
    }
}
