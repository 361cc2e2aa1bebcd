//! MCP protocol types the client reads and writes, for every supported protocol version.
//!
//! Fields added by newer versions are optional, so one set of types reads all of them. What the
//! worker only stores and forwards (tools, tool results, resource contents) is kept as the
//! server's JSON behind accessors, so unknown fields survive; elsewhere unknown fields are
//! ignored and `_meta` objects are kept as raw JSON for whoever needs them.

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

impl Implementation {
    /// Reads `serverInfo` by hand (the worker's wasm carries no derived decoder for it);
    /// `None` without a `name` string. `version` and `title` of another type are left out.
    pub fn from_value(value: &Value) -> Option<Implementation> {
        let text = |name: &str| value.get(name).and_then(Value::as_str).map(str::to_owned);
        Some(Implementation {
            name: text("name")?,
            version: text("version").unwrap_or_default(),
            title: text("title"),
        })
    }

    /// The JSON form, as the derived `Serialize` writes it (without serde's value serialiser).
    pub fn to_value(&self) -> Value {
        let mut fields = Map::new();
        fields.insert("name".into(), self.name.as_str().into());
        fields.insert("version".into(), self.version.as_str().into());
        if let Some(title) = &self.title {
            fields.insert("title".into(), title.as_str().into());
        }
        Value::Object(fields)
    }
}

/// One entry of `tools/list`, kept as the server sent it: the worker stores and forwards tools,
/// so fields this client does not know (and `_meta`) survive, and the worker's wasm carries no
/// typed decoder for them. Always an object with a string `name` and an `inputSchema` (an
/// empty object schema when the server gave none); read it through the accessors.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(transparent)]
pub struct Tool(Value);

impl Tool {
    /// Checks what every reader relies on; a tool without a name is refused.
    pub fn from_value(value: Value) -> Result<Tool, String> {
        let Value::Object(mut fields) = value else {
            return Err("a tool must be an object".into());
        };
        if !fields.get("name").is_some_and(Value::is_string) {
            return Err("a tool has no `name` string".into());
        }
        fields.entry("inputSchema").or_insert_with(empty_object_schema);
        Ok(Tool(Value::Object(fields)))
    }

    pub fn name(&self) -> &str {
        str_field(&self.0, "name").unwrap_or_default()
    }

    pub fn title(&self) -> Option<&str> {
        str_field(&self.0, "title")
    }

    pub fn description(&self) -> Option<&str> {
        str_field(&self.0, "description")
    }

    pub fn input_schema(&self) -> &Value {
        self.0.get("inputSchema").unwrap_or(&Value::Null)
    }

    pub fn output_schema(&self) -> Option<&Value> {
        self.0.get("outputSchema").filter(|s| !s.is_null())
    }

    /// A boolean hint of `annotations` (`readOnlyHint`, `destructiveHint`, `idempotentHint`,
    /// `openWorldHint`); `None` when absent or not a boolean.
    pub fn hint(&self, name: &str) -> Option<bool> {
        self.0.get("annotations")?.get(name)?.as_bool()
    }

    /// `_meta`, as sent.
    pub fn meta(&self) -> Option<&Value> {
        self.0.get("_meta").filter(|m| !m.is_null())
    }

    pub fn as_value(&self) -> &Value {
        &self.0
    }

    pub fn into_value(self) -> Value {
        self.0
    }
}

impl<'de> Deserialize<'de> for Tool {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        Tool::from_value(Value::deserialize(deserializer)?).map_err(serde::de::Error::custom)
    }
}

/// A string field of a JSON object; `None` when it is missing or not a string.
fn str_field<'a>(value: &'a Value, name: &str) -> Option<&'a str> {
    value.get(name).and_then(Value::as_str)
}

/// The text of a `text` content block.
fn block_text(block: &Value) -> Option<&str> {
    (str_field(block, "type") == Some("text")).then(|| str_field(block, "text")).flatten()
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
        let ui = self.meta()?.get("ui")?;
        ui.get("resourceUri").and_then(Value::as_str)
    }

    /// `_meta.ui.visibility`; absent means both the model and apps may use the tool.
    pub fn visibility(&self) -> Vec<Visibility> {
        let listed = self
            .meta()
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

impl ListToolsResult {
    /// Reads a page by hand, so the worker needs no decoder beyond [`Tool::from_value`]. An
    /// entry that is no tool (no name) is left out rather than failing the page: the server's
    /// other tools stay usable, and a nameless tool could never be called anyway.
    pub fn from_value(mut page: Value) -> Result<Self, String> {
        let tools = match page.get_mut("tools").map(Value::take) {
            None | Some(Value::Null) => Vec::new(),
            Some(Value::Array(items)) => {
                items.into_iter().filter_map(|item| Tool::from_value(item).ok()).collect()
            }
            Some(_) => return Err("`tools` must be an array".into()),
        };
        let next_cursor = match page.get_mut("nextCursor").map(Value::take) {
            None | Some(Value::Null) => None,
            Some(Value::String(cursor)) => Some(cursor),
            Some(_) => return Err("`nextCursor` must be a string".into()),
        };
        Ok(ListToolsResult { tools, next_cursor })
    }
}

/// The text or base64 payload of a resource, as the server sent it. Always has a `uri` string.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(transparent)]
pub struct ResourceContents(Value);

impl ResourceContents {
    pub fn uri(&self) -> &str {
        str_field(&self.0, "uri").unwrap_or_default()
    }

    pub fn mime_type(&self) -> Option<&str> {
        str_field(&self.0, "mimeType")
    }

    pub fn text(&self) -> Option<&str> {
        str_field(&self.0, "text")
    }

    /// Base64, as sent; decode with the `base64` crate when needed.
    pub fn blob(&self) -> Option<&str> {
        str_field(&self.0, "blob")
    }

    pub fn meta(&self) -> Option<&Value> {
        self.0.get("_meta").filter(|m| !m.is_null())
    }
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
        str_field(&self.0, "type").unwrap_or_default()
    }

    /// The text of a `text` block.
    pub fn text(&self) -> Option<&str> {
        block_text(&self.0)
    }

    /// The MIME type of an `image` or `audio` block (and of a resource link that names one).
    pub fn mime_type(&self) -> Option<&str> {
        str_field(&self.0, "mimeType")
    }
}

/// A `tools/call` result, kept as the server sent it (like [`Tool`]): the worker forwards it
/// to the pages whole. Always an object whose `content` is an array (empty when absent).
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(transparent)]
pub struct CallToolResult(Value);

impl Default for CallToolResult {
    fn default() -> Self {
        CallToolResult(serde_json::json!({"content": []}))
    }
}

impl CallToolResult {
    pub fn from_value(value: Value) -> Result<CallToolResult, String> {
        let Value::Object(mut fields) = value else {
            return Err("a tool result must be an object".into());
        };
        match fields.entry("content").or_insert_with(|| Value::Array(Vec::new())) {
            Value::Array(_) => {}
            _ => return Err("`content` of a tool result must be an array".into()),
        }
        if fields.get("isError").is_some_and(|e| !e.is_boolean() && !e.is_null()) {
            return Err("`isError` of a tool result must be a boolean".into());
        }
        Ok(CallToolResult(Value::Object(fields)))
    }

    /// The text blocks of the result, joined: what a tool "said".
    pub fn text(&self) -> String {
        self.blocks().filter_map(block_text).collect()
    }

    /// The content blocks, copied.
    pub fn content(&self) -> Vec<ContentBlock> {
        self.blocks().cloned().map(ContentBlock).collect()
    }

    pub fn structured_content(&self) -> Option<&Value> {
        self.0.get("structuredContent").filter(|v| !v.is_null())
    }

    pub fn is_error(&self) -> bool {
        self.0.get("isError").and_then(Value::as_bool).unwrap_or(false)
    }

    pub fn meta(&self) -> Option<&Value> {
        self.0.get("_meta").filter(|m| !m.is_null())
    }

    pub fn as_value(&self) -> &Value {
        &self.0
    }

    fn blocks(&self) -> impl Iterator<Item = &Value> {
        self.0.get("content").and_then(Value::as_array).into_iter().flatten()
    }
}

impl<'de> Deserialize<'de> for CallToolResult {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        CallToolResult::from_value(Value::deserialize(deserializer)?)
            .map_err(serde::de::Error::custom)
    }
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

/// A `resources/read` result, kept as the server sent it (like [`Tool`]). Always an object
/// whose `contents` is an array of objects with a `uri` string.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(transparent)]
pub struct ReadResourceResult(Value);

impl ReadResourceResult {
    pub fn from_value(value: Value) -> Result<ReadResourceResult, String> {
        let Value::Object(mut fields) = value else {
            return Err("a resource read result must be an object".into());
        };
        let Value::Array(contents) =
            fields.entry("contents").or_insert_with(|| Value::Array(Vec::new()))
        else {
            return Err("`contents` must be an array".into());
        };
        if !contents.iter().all(|c| c.get("uri").is_some_and(Value::is_string)) {
            return Err("every entry of `contents` needs a `uri` string".into());
        }
        Ok(ReadResourceResult(Value::Object(fields)))
    }

    /// The entries of `contents`, copied.
    pub fn contents(&self) -> Vec<ResourceContents> {
        let items = self.0.get("contents").and_then(Value::as_array);
        items.into_iter().flatten().cloned().map(ResourceContents).collect()
    }

    pub fn as_value(&self) -> &Value {
        &self.0
    }
}

impl<'de> Deserialize<'de> for ReadResourceResult {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        ReadResourceResult::from_value(Value::deserialize(deserializer)?)
            .map_err(serde::de::Error::custom)
    }
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
    /// Reads an `initialize` result by hand (no derived decoder in the worker's wasm).
    pub fn from_value(mut value: Value) -> Result<ServerDescription, String> {
        let Some(Value::String(protocol_version)) =
            value.get_mut("protocolVersion").map(Value::take)
        else {
            return Err("missing `protocolVersion` string".into());
        };
        let server_info = match value.get("serverInfo") {
            None | Some(Value::Null) => Implementation::default(),
            Some(info) => Implementation::from_value(info)
                .ok_or_else(|| "`serverInfo` has no `name` string".to_owned())?,
        };
        let instructions = match value.get_mut("instructions").map(Value::take) {
            None | Some(Value::Null) => None,
            Some(Value::String(text)) => Some(text),
            Some(_) => return Err("`instructions` must be a string".into()),
        };
        let capabilities = value.get_mut("capabilities").map(Value::take).unwrap_or_default();
        Ok(ServerDescription { protocol_version, server_info, capabilities, instructions })
    }

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

impl Progress {
    /// Reads `notifications/progress` params by hand, as the derive would (which cost the
    /// worker's wasm ~1 KB): `None` when the token or the number is missing, or a field has
    /// the wrong type (`null` counts as absent for the optional ones).
    pub fn from_value(params: &Value) -> Option<Progress> {
        let present = |name: &str| params.get(name).filter(|v| !v.is_null());
        let total = match present("total") {
            Some(total) => Some(total.as_f64()?),
            None => None,
        };
        let message = match present("message") {
            Some(message) => Some(message.as_str()?.to_owned()),
            None => None,
        };
        Some(Progress {
            progress_token: params.as_object()?.get("progressToken")?.clone(),
            progress: params.get("progress")?.as_f64()?,
            total,
            message,
        })
    }
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

impl ElicitAction {
    const ALL: [(ElicitAction, &'static str); 3] = [
        (ElicitAction::Accept, "accept"),
        (ElicitAction::Decline, "decline"),
        (ElicitAction::Cancel, "cancel"),
    ];

    fn as_str(self) -> &'static str {
        Self::ALL.iter().find(|(action, _)| *action == self).map_or("", |(_, name)| name)
    }
}

/// The person's answer to an [`ElicitRequest`]. Its JSON form is `{"action": …, "content": …}`,
/// written and read by hand (`to_value`, `from_value`): the derives were ~1.5 KB of the
/// worker's wasm. A test checks both against a derived twin.
#[derive(Clone, Debug, PartialEq)]
pub struct ElicitResult {
    pub action: ElicitAction,
    pub content: Option<Map<String, Value>>,
}

impl ElicitResult {
    pub fn to_value(&self) -> Value {
        let mut fields = Map::new();
        fields.insert("action".into(), self.action.as_str().into());
        if let Some(content) = &self.content {
            fields.insert("content".into(), Value::Object(content.clone()));
        }
        Value::Object(fields)
    }

    /// Unknown fields are ignored; a `null` `content` is none. Errors read like serde's.
    pub fn from_value(value: Value) -> Result<ElicitResult, String> {
        let Value::Object(mut fields) = value else {
            return Err("invalid type: expected struct ElicitResult".into());
        };
        let action = match fields.get("action") {
            None => return Err("missing field `action`".into()),
            Some(Value::String(name)) => ElicitAction::ALL
                .iter()
                .find(|(_, known)| known == name)
                .map(|(action, _)| *action)
                .ok_or_else(|| {
                    format!(
                        "unknown variant `{name}`, expected one of `accept`, `decline`, `cancel`"
                    )
                })?,
            Some(_) => return Err("invalid type: expected `action` to be a string".into()),
        };
        let content = match fields.remove("content") {
            None | Some(Value::Null) => None,
            Some(Value::Object(content)) => Some(content),
            Some(_) => return Err("invalid type: expected `content` to be an object".into()),
        };
        Ok(ElicitResult { action, content })
    }
}

impl Serialize for ElicitResult {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.to_value().serialize(serializer)
    }
}

impl<'de> Deserialize<'de> for ElicitResult {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        ElicitResult::from_value(Value::deserialize(deserializer)?)
            .map_err(serde::de::Error::custom)
    }
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
        let content = result.content();
        let kinds: Vec<&str> = content.iter().map(ContentBlock::kind).collect();
        assert_eq!(kinds, ["text", "image", "resource_link", "hologram"]);
        assert_eq!(result.text(), "hi");
        assert_eq!(content[1].mime_type(), Some("image/png"));
        assert_eq!(content[1].text(), None);
        assert_eq!(ContentBlock::text_block("x").0, json!({"type": "text", "text": "x"}));
        assert!(!result.is_error());
    }

    #[test]
    fn results_get_the_fields_readers_rely_on_or_are_refused() {
        let empty = CallToolResult::from_value(json!({"isError": true})).unwrap();
        assert_eq!(empty.as_value(), &json!({"content": [], "isError": true}));
        assert!(empty.is_error());
        assert!(CallToolResult::from_value(json!({"content": "x"})).is_err());
        assert!(CallToolResult::from_value(json!({"isError": "yes"})).is_err());
        assert!(CallToolResult::from_value(json!([])).is_err());

        let read = ReadResourceResult::from_value(
            json!({"contents": [{"uri": "a://b", "text": "t", "x-new": 1}]}),
        )
        .unwrap();
        assert_eq!(read.contents()[0].uri(), "a://b");
        assert_eq!(read.contents()[0].text(), Some("t"));
        assert_eq!(read.as_value()["contents"][0]["x-new"], 1);
        assert!(ReadResourceResult::from_value(json!({"contents": [{"text": "t"}]})).is_err());
        assert!(ReadResourceResult::from_value(json!({"contents": {}})).is_err());
    }

    #[test]
    fn tools_keep_unknown_fields_and_need_a_name() {
        let tool = Tool::from_value(json!({
            "name": "t",
            "annotations": {"readOnlyHint": true, "x-new": 1},
            "x-new": [1],
        }))
        .unwrap();
        assert_eq!(tool.name(), "t");
        assert_eq!(tool.input_schema(), &json!({"type": "object"}));
        assert_eq!(tool.hint("readOnlyHint"), Some(true));
        assert_eq!(tool.hint("destructiveHint"), None);
        assert_eq!(tool.as_value()["x-new"], json!([1]));
        assert!(Tool::from_value(json!({"description": "no name"})).is_err());
        assert!(Tool::from_value(json!({"name": 3})).is_err());
        let page =
            ListToolsResult::from_value(json!({"tools": [{"name": "a"}], "nextCursor": "c"}))
                .unwrap();
        assert_eq!((page.tools.len(), page.next_cursor.as_deref()), (1, Some("c")));
        // One broken entry costs only itself: the server's other tools stay usable.
        let page =
            ListToolsResult::from_value(json!({"tools": [{"name": "a"}, {}, 7, {"name": "b"}]}));
        let names: Vec<String> = page.unwrap().tools.iter().map(|t| t.name().to_owned()).collect();
        assert_eq!(names, ["a", "b"]);
        assert!(ListToolsResult::from_value(json!({"tools": [], "nextCursor": 1})).is_err());
    }

    #[test]
    fn progress_is_read_by_hand_as_the_derive_reads_it() {
        for params in [
            json!({"progressToken": "t", "progress": 1}),
            json!({"progressToken": 7, "progress": 0.5, "total": 2, "message": "half"}),
            json!({"progressToken": null, "progress": -3, "total": null, "message": null}),
            json!({"progressToken": "t", "progress": 1, "x": {}}),
            json!({"progressToken": "t"}),
            json!({"progress": 1}),
            json!({"progressToken": "t", "progress": "1"}),
            json!({"progressToken": "t", "progress": 1, "total": "2"}),
            json!({"progressToken": "t", "progress": 1, "message": 3}),
            json!(["t", 1]),
            json!(null),
        ] {
            let derived: Option<Progress> = serde_json::from_value(params.clone()).ok();
            // serde's derive also reads a struct from an array; MCP params are objects.
            let derived = derived.filter(|_| params.is_object());
            assert_eq!(Progress::from_value(&params), derived, "{params}");
        }
    }

    #[test]
    fn elicit_results_by_hand_agree_with_a_derived_twin() {
        #[derive(Debug, PartialEq, Serialize, Deserialize)]
        struct Derived {
            action: ElicitAction,
            #[serde(default, skip_serializing_if = "Option::is_none")]
            content: Option<Map<String, Value>>,
        }
        for wire in [
            json!({"action": "accept", "content": {"name": "Ada", "n": 3}}),
            json!({"action": "accept", "content": {}}),
            json!({"action": "decline"}),
            json!({"action": "cancel", "content": null, "extra": 1}),
            json!({"action": "maybe"}),
            json!({"action": 1}),
            json!({"content": {}}),
            json!({"action": "accept", "content": []}),
            json!("accept"),
        ] {
            let derived = serde_json::from_value::<Derived>(wire.clone());
            let by_hand = serde_json::from_value::<ElicitResult>(wire.clone());
            assert_eq!(by_hand.is_ok(), derived.is_ok(), "{wire}");
            if let (Ok(by_hand), Ok(derived)) = (by_hand, derived) {
                assert_eq!((by_hand.action, &by_hand.content), (derived.action, &derived.content));
                let written = serde_json::to_value(&by_hand).unwrap();
                assert_eq!(written, serde_json::to_value(&derived).unwrap(), "{wire}");
            }
        }
        let unknown = serde_json::from_value::<ElicitResult>(json!({"action": "maybe"}));
        assert_eq!(
            unknown.unwrap_err().to_string(),
            "unknown variant `maybe`, expected one of `accept`, `decline`, `cancel`"
        );
    }

    #[test]
    fn implementations_are_written_as_the_derive_writes_them() {
        let mut info = Implementation { name: "n".into(), version: "1".into(), title: None };
        assert_eq!(info.to_value(), serde_json::to_value(&info).unwrap());
        info.title = Some("T".into());
        assert_eq!(info.to_value(), serde_json::to_value(&info).unwrap());
    }

    #[test]
    fn server_descriptions_are_read_by_hand() {
        let d = ServerDescription::from_value(json!({
            "protocolVersion": "2025-06-18",
            "serverInfo": {"name": "s", "version": "1"},
            "capabilities": {"tools": {}},
        }))
        .unwrap();
        assert_eq!((d.server_info.name.as_str(), d.server_info.version.as_str()), ("s", "1"));
        assert!(d.has_capability("tools") && d.instructions.is_none());
        assert!(ServerDescription::from_value(json!({"capabilities": {}})).is_err());
        let no_name = json!({"protocolVersion": "x", "serverInfo": {"version": "1"}});
        assert!(ServerDescription::from_value(no_name).is_err());
    }
}
