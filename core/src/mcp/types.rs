//! MCP protocol types the client reads and writes, for every supported protocol version.
//!
//! Fields added by newer versions are optional, so one set of types reads all of them. What the
//! worker stores and forwards to the pages (tools, tool results, resource contents) keeps every
//! field the server sent: known fields are typed, the rest is kept in `extra` and written back
//! as it came. Content blocks stay the server's JSON behind accessors: their kinds grow with the
//! protocol, and a page must see a block of a newer kind as it was sent.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::decode::{DecodeError, Lenient};
use crate::text::Text;

/// `clientInfo` / `serverInfo`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Implementation {
    pub name: String,
    #[serde(default)]
    pub version: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// `icons`, `websiteUrl`, `description`, and whatever later versions add.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

impl Implementation {
    pub fn new(name: impl Into<String>, version: impl Into<String>) -> Self {
        Implementation {
            name: name.into(),
            version: version.into(),
            title: None,
            extra: Map::new(),
        }
    }
}

/// One entry of `tools/list`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Tool {
    pub name: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Required by the specification, and a JSON Schema object; a server that leaves it out
    /// gets an empty object schema.
    #[serde(default = "empty_object_schema", deserialize_with = "schema_object")]
    pub input_schema: Value,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub output_schema: Option<Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub annotations: Option<ToolAnnotations>,
    #[serde(default, rename = "_meta", skip_serializing_if = "Option::is_none")]
    pub meta: Option<ToolMeta>,
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

fn empty_object_schema() -> Value {
    serde_json::json!({"type": "object"})
}

/// A schema must be a JSON object (`true` and `false` are schemas too, but not for a tool's
/// arguments, which are always an object).
fn schema_object<'de, D: serde::Deserializer<'de>>(deserializer: D) -> Result<Value, D::Error> {
    Map::<String, Value>::deserialize(deserializer).map(Value::Object)
}

/// `annotations` of a tool: hints, never guarantees.
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
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// `_meta` of a tool; of interest here is what the MCP Apps extension puts there.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct ToolMeta {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ui: Option<UiToolMeta>,
    /// The older, flat form of `ui.resourceUri`.
    #[serde(default, rename = "ui/resourceUri", skip_serializing_if = "Option::is_none")]
    pub ui_resource_uri: Option<String>,
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// `_meta.ui` of a tool (MCP Apps).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct UiToolMeta {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resource_uri: Option<String>,
    /// Absent means both the model and apps; an empty list means neither.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub visibility: Option<Vec<Visibility>>,
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// Who may see a tool (`_meta.ui.visibility`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Visibility {
    Model,
    App,
    /// A value of a later version of the extension; grants nothing here.
    #[serde(other)]
    Unknown,
}

impl Tool {
    /// A tool with a name and nothing else, as a server may list it.
    pub fn named(name: impl Into<String>) -> Self {
        Tool {
            name: name.into(),
            title: None,
            description: None,
            input_schema: empty_object_schema(),
            output_schema: None,
            annotations: None,
            meta: None,
            extra: Map::new(),
        }
    }

    /// A boolean hint of `annotations`; `None` when absent.
    pub fn read_only(&self) -> Option<bool> {
        self.annotations.as_ref()?.read_only_hint
    }

    pub fn destructive(&self) -> Option<bool> {
        self.annotations.as_ref()?.destructive_hint
    }

    /// The `ui://` resource holding this tool's MCP App: `_meta.ui.resourceUri`, or the older
    /// flat `_meta["ui/resourceUri"]`. `None` when the URI is not `ui://…`: the specification
    /// allows no other scheme, and the host would otherwise read whatever URI a tool names.
    pub fn ui_resource_uri(&self) -> Option<&str> {
        let meta = self.meta.as_ref()?;
        let nested = meta.ui.as_ref().and_then(|ui| ui.resource_uri.as_deref());
        nested.or(meta.ui_resource_uri.as_deref()).filter(|uri| is_ui_uri(uri))
    }

    /// Whether `who` may see the tool, as the MCP Apps specification says: absent means
    /// `["model", "app"]`; a list, empty included, means exactly those.
    pub fn is_visible_to(&self, who: Visibility) -> bool {
        let listed =
            self.meta.as_ref().and_then(|m| m.ui.as_ref()).and_then(|ui| ui.visibility.as_ref());
        listed.is_none_or(|list| list.contains(&who))
    }
}

/// `ui://` and something after it; the scheme in any case (RFC 3986, 3.1).
fn is_ui_uri(uri: &str) -> bool {
    uri.get(..5).is_some_and(|scheme| scheme.eq_ignore_ascii_case("ui://")) && uri.len() > 5
}

/// A `tools/list` result page. A malformed entry costs only itself: the others are listed,
/// and [`ToolsPage::invalid`] says what was wrong with the bad one.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ListToolsResult {
    #[serde(default)]
    pub tools: Vec<Lenient<Tool>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub next_cursor: Option<String>,
    /// 2026-07-28: how long the page may be reused.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ttl_ms: Option<Value>,
}

/// A tool the server listed that could not be read.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct InvalidTool {
    /// Its `name`, when it had a string one.
    #[serde(default)]
    pub name: Option<String>,
    /// What was wrong, with the place ("inputSchema: invalid type: …" in serde's words).
    pub reason: Text,
}

impl InvalidTool {
    fn new(raw: &Value, error: &DecodeError) -> Self {
        let name = raw.get("name").and_then(Value::as_str).map(str::to_owned);
        InvalidTool { name, reason: Text::new("errToolUnreadable").arg(error.located()) }
    }
}

impl ListToolsResult {
    /// The readable tools and what was wrong with the others.
    pub fn split(self) -> (Vec<Tool>, Vec<InvalidTool>) {
        let mut tools = Vec::new();
        let mut invalid = Vec::new();
        for entry in self.tools {
            match entry {
                Lenient::Valid(tool) => tools.push(tool),
                Lenient::Invalid { raw, error } => invalid.push(InvalidTool::new(&raw, &error)),
            }
        }
        (tools, invalid)
    }
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
    pub meta: Option<Map<String, Value>>,
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// One block of tool output (text, image, audio, resource, resource_link, or a kind newer than
/// this client), kept as the server sent it so that annotations, `_meta` and unknown kinds reach
/// the pages unchanged.
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

/// A `tools/call` result.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CallToolResult {
    #[serde(default)]
    pub content: Vec<ContentBlock>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub structured_content: Option<Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub is_error: Option<bool>,
    #[serde(default, rename = "_meta", skip_serializing_if = "Option::is_none")]
    pub meta: Option<Map<String, Value>>,
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

impl CallToolResult {
    /// The text blocks of the result, joined: what a tool "said".
    pub fn text(&self) -> String {
        self.content.iter().filter_map(ContentBlock::text).collect()
    }

    pub fn is_error(&self) -> bool {
        self.is_error.unwrap_or(false)
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
    pub meta: Option<Map<String, Value>>,
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ListResourcesResult {
    #[serde(default)]
    pub resources: Vec<Resource>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub next_cursor: Option<String>,
}

/// A `resources/read` result.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ReadResourceResult {
    #[serde(default)]
    pub contents: Vec<ResourceContents>,
    #[serde(default, rename = "_meta", skip_serializing_if = "Option::is_none")]
    pub meta: Option<Map<String, Value>>,
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// The `initialize` result of the handshake era. `serverInfo` is required by every version of
/// the specification that has the handshake.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct InitializeResult {
    pub protocol_version: String,
    pub server_info: Implementation,
    #[serde(default)]
    pub capabilities: Map<String, Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub instructions: Option<String>,
}

/// The `server/discover` result of protocol 2026-07-28.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct DiscoverResult {
    #[serde(default)]
    pub supported_versions: Vec<String>,
    #[serde(default)]
    pub capabilities: Map<String, Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub instructions: Option<String>,
    #[serde(default, rename = "_meta", skip_serializing_if = "Option::is_none")]
    pub meta: Option<DiscoverMeta>,
}

/// `_meta` of a discover result: where 2026-07-28 puts what the handshake called `serverInfo`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct DiscoverMeta {
    #[serde(
        default,
        rename = "io.modelcontextprotocol/serverInfo",
        skip_serializing_if = "Option::is_none"
    )]
    pub server_info: Option<Implementation>,
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// What the server told about itself, from `initialize` or `server/discover`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ServerDescription {
    pub protocol_version: String,
    /// Always there after the handshake; optional with 2026-07-28.
    #[serde(default)]
    pub server_info: Option<Implementation>,
    #[serde(default)]
    pub capabilities: Map<String, Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub instructions: Option<String>,
}

impl ServerDescription {
    pub fn has_capability(&self, name: &str) -> bool {
        self.capabilities.get(name).is_some_and(|c| !c.is_null())
    }

    /// The server's name, when it gave a non-empty one.
    pub fn name(&self) -> Option<&str> {
        self.server_info.as_ref().map(|i| i.name.as_str()).filter(|n| !n.is_empty())
    }
}

impl From<InitializeResult> for ServerDescription {
    fn from(result: InitializeResult) -> Self {
        ServerDescription {
            protocol_version: result.protocol_version,
            server_info: Some(result.server_info),
            capabilities: result.capabilities,
            instructions: result.instructions,
        }
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

/// The params of `elicitation/create` as sent; [`ElicitRequest`] is what they mean.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ElicitParams {
    /// Absent in form requests before 2025-11-25.
    #[serde(default)]
    pub mode: Option<ElicitMode>,
    #[serde(default)]
    pub message: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub requested_schema: Option<Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub url: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub elicitation_id: Option<String>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ElicitMode {
    Form,
    Url,
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
            "_meta": {"io.example/trace": "t"},
            "x-new": {"kept": true},
        });
        let result: CallToolResult = serde_json::from_value(wire.clone()).unwrap();
        assert_eq!(serde_json::to_value(&result).unwrap(), wire);
        let kinds: Vec<&str> = result.content.iter().map(ContentBlock::kind).collect();
        assert_eq!(kinds, ["text", "image", "resource_link", "hologram"]);
        assert_eq!(result.text(), "hi");
        assert_eq!(result.content[1].mime_type(), Some("image/png"));
        assert_eq!(result.content[1].text(), None);
        assert_eq!(ContentBlock::text_block("x").0, json!({"type": "text", "text": "x"}));
        assert!(!result.is_error());
    }

    #[test]
    fn results_default_what_may_be_absent_and_refuse_wrong_types() {
        let empty: CallToolResult = serde_json::from_value(json!({"isError": true})).unwrap();
        assert!(empty.content.is_empty() && empty.is_error());
        for bad in [json!({"content": "x"}), json!({"isError": "yes"}), json!([])] {
            assert!(serde_json::from_value::<CallToolResult>(bad.clone()).is_err(), "{bad}");
        }
        let read: ReadResourceResult = serde_json::from_value(
            json!({"contents": [{"uri": "a://b", "text": "t", "x-new": 1}]}),
        )
        .unwrap();
        assert_eq!(read.contents[0].uri, "a://b");
        assert_eq!(read.contents[0].text.as_deref(), Some("t"));
        assert_eq!(serde_json::to_value(&read).unwrap()["contents"][0]["x-new"], 1);
        for bad in [json!({"contents": [{"text": "t"}]}), json!({"contents": {}})] {
            assert!(serde_json::from_value::<ReadResourceResult>(bad.clone()).is_err(), "{bad}");
        }
    }

    #[test]
    fn tools_keep_unknown_fields() {
        let wire = json!({
            "name": "t",
            "inputSchema": {"type": "object"},
            "annotations": {"readOnlyHint": true, "x-new": 1},
            "_meta": {"ui": {"resourceUri": "ui://a", "x": 2}, "other/key": 3},
            "x-new": [1],
        });
        let tool: Tool = serde_json::from_value(wire.clone()).unwrap();
        assert_eq!(
            (tool.name.as_str(), tool.read_only(), tool.destructive()),
            ("t", Some(true), None)
        );
        assert_eq!(tool.ui_resource_uri(), Some("ui://a"));
        assert_eq!(serde_json::to_value(&tool).unwrap(), wire);
        let bare: Tool = serde_json::from_value(json!({"name": "b"})).unwrap();
        assert_eq!(bare, Tool::named("b"));
        assert_eq!(bare.input_schema, json!({"type": "object"}));
    }

    #[test]
    fn one_malformed_tool_costs_only_itself() {
        let page: ListToolsResult = serde_json::from_value(json!({
            "tools": [{"name": "a"}, {}, 7, {"name": "c", "inputSchema": {}, "annotations": {"readOnlyHint": "yes"}}, {"name": "d", "inputSchema": "nope"}, {"name": "b"}],
            "nextCursor": "next",
        }))
        .unwrap();
        assert_eq!(page.next_cursor.as_deref(), Some("next"));
        let (tools, invalid) = page.split();
        let names: Vec<&str> = tools.iter().map(|t| t.name.as_str()).collect();
        assert_eq!(names, ["a", "b"]);
        assert_eq!(invalid.len(), 4);
        assert_eq!(invalid[0].name, None);
        assert!(invalid[0].reason.to_string().contains("missing field `name`"), "{:?}", invalid[0]);
        assert_eq!(invalid[2].name.as_deref(), Some("c"));
        assert!(
            invalid[2].reason.to_string().contains(": annotations.readOnlyHint: invalid type"),
            "{:?}",
            invalid[2]
        );
        assert!(serde_json::from_value::<ListToolsResult>(json!({"tools": [], "nextCursor": 1}))
            .is_err());
    }

    #[test]
    fn visibility_follows_the_apps_specification() {
        let with = |visibility: Value| -> Tool {
            serde_json::from_value(
                json!({"name": "t", "_meta": {"ui": {"visibility": visibility}}}),
            )
            .unwrap()
        };
        let absent = Tool::named("t");
        assert!(absent.is_visible_to(Visibility::Model) && absent.is_visible_to(Visibility::App));
        let none = with(json!([]));
        assert!(!none.is_visible_to(Visibility::Model) && !none.is_visible_to(Visibility::App));
        let app = with(json!(["app", "later-kind"]));
        assert!(!app.is_visible_to(Visibility::Model) && app.is_visible_to(Visibility::App));
        let flat: Tool =
            serde_json::from_value(json!({"name": "t", "_meta": {"ui/resourceUri": "ui://old"}}))
                .unwrap();
        assert_eq!(flat.ui_resource_uri(), Some("ui://old"));
    }

    #[test]
    fn only_a_ui_resource_makes_an_app() {
        let tool = |meta: Value| -> Tool {
            serde_json::from_value(json!({"name": "t", "_meta": meta})).unwrap()
        };
        for (meta, app) in [
            (json!({"ui": {"resourceUri": "ui://chart/app.html"}}), Some("ui://chart/app.html")),
            (json!({"ui/resourceUri": "ui://old"}), Some("ui://old")),
            (json!({"ui": {"resourceUri": "UI://Upper"}}), Some("UI://Upper")),
            // Not an app: no resources/read of an arbitrary URI on the tool's say-so.
            (json!({"ui": {"resourceUri": "https://example.com/app.html"}}), None),
            (json!({"ui": {"resourceUri": "file:///etc/passwd"}}), None),
            (json!({"ui/resourceUri": "data:text/html,<p>"}), None),
            (json!({"ui": {"resourceUri": "ui:chart"}}), None),
            (json!({"ui": {"resourceUri": "ui://"}}), None),
            (json!({"ui": {"resourceUri": ""}}), None),
            (json!({"ui": {"resourceUri": " ui://padded"}}), None),
            // The nested form decides when present, as it does for a ui:// one.
            (json!({"ui": {"resourceUri": "https://x"}, "ui/resourceUri": "ui://old"}), None),
        ] {
            assert_eq!(tool(meta.clone()).ui_resource_uri(), app, "{meta}");
        }
    }

    #[test]
    fn progress_needs_a_token_and_a_number() {
        let read = |params: Value| serde_json::from_value::<Progress>(params).ok();
        let full =
            read(json!({"progressToken": 7, "progress": 0.5, "total": 2, "message": "half"}));
        assert_eq!(full.map(|p| (p.progress, p.total)), Some((0.5, Some(2.0))));
        assert!(read(json!({"progressToken": null, "progress": -3, "total": null})).is_some());
        for bad in [
            json!({"progressToken": "t"}),
            json!({"progress": 1}),
            json!({"progressToken": "t", "progress": "1"}),
            json!({"progressToken": "t", "progress": 1, "total": "2"}),
            json!(null),
        ] {
            assert_eq!(read(bad.clone()), None, "{bad}");
        }
    }

    #[test]
    fn elicit_results_are_an_action_and_maybe_content() {
        let accept: ElicitResult =
            serde_json::from_value(json!({"action": "accept", "content": {"n": 3}, "extra": 1}))
                .unwrap();
        assert_eq!(accept.action, ElicitAction::Accept);
        assert_eq!(
            serde_json::to_value(&accept).unwrap(),
            json!({"action": "accept", "content": {"n": 3}})
        );
        let decline = serde_json::to_value(ElicitResult::decline()).unwrap();
        assert_eq!(decline, json!({"action": "decline"}));
        let unknown = serde_json::from_value::<ElicitResult>(json!({"action": "maybe"}));
        assert_eq!(
            unknown.unwrap_err().to_string(),
            "unknown variant `maybe`, expected one of `accept`, `decline`, `cancel`"
        );
    }

    #[test]
    fn an_initialize_result_needs_server_info_as_the_specification_says() {
        let ok: InitializeResult = serde_json::from_value(json!({
            "protocolVersion": "2025-06-18",
            "serverInfo": {"name": "s", "version": "1", "websiteUrl": "https://s.example"},
            "capabilities": {"tools": {}},
        }))
        .unwrap();
        let description = ServerDescription::from(ok);
        assert_eq!(description.name(), Some("s"));
        assert!(description.has_capability("tools") && description.instructions.is_none());
        for bad in [
            json!({"protocolVersion": "x", "capabilities": {}}),
            json!({"protocolVersion": "x", "serverInfo": null}),
            json!({"protocolVersion": "x", "serverInfo": {"version": "1"}}),
            json!({"serverInfo": {"name": "s"}}),
        ] {
            assert!(serde_json::from_value::<InitializeResult>(bad.clone()).is_err(), "{bad}");
        }
    }
}
