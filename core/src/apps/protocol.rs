//! The messages of the MCP Apps protocol: JSON-RPC 2.0 over `postMessage`, one type each.
//!
//! What an app sends is read into [`FromApp`]; its requests' `params` into the typed
//! [`AppRequest`] variants (unknown methods are answered "method not found", not dropped).
//! What the host sends is built from the `Serialize` types below.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::csp::DeclaredCsp;
use super::resource::Permissions;
use crate::jsonrpc::{ErrorObject, Id, Message};

/// How an app is shown.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum DisplayMode {
    Inline,
    Fullscreen,
    Pip,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Theme {
    Light,
    Dark,
}

/// A request of the app, by method (the JSON-RPC `method`; `params` read into the variant's
/// type).
#[derive(Clone, Debug, PartialEq)]
pub enum AppRequest {
    Initialize(InitializeParams),
    CallTool(CallToolParams),
    ListTools,
    /// `resources/list` of the app's own server; a `cursor` is not read (the host answers with
    /// every page at once, so it never gives the app one).
    ListResources,
    /// `resources/templates/list` of the app's own server, every page at once as for
    /// `resources/list`.
    ListResourceTemplates,
    ReadResource(ReadResourceParams),
    OpenLink(OpenLinkParams),
    Message(MessageParams),
    UpdateModelContext(ModelContextParams),
    RequestDisplayMode(DisplayModeParams),
    Ping,
    /// `ui/log` sent as a request (answered `{}`); see [`LogParams::read`].
    Log(LogParams),
}

/// A notification of the app, by method.
#[derive(Clone, Debug, PartialEq)]
pub enum AppNotification {
    Initialized,
    SizeChanged(SizeParams),
    /// `notifications/message`, or `ui/log`, which ext-apps 2.x does not have but some
    /// 1.x-era apps send.
    Log(LogParams),
    RequestTeardown,
    /// The app's own tools changed (`notifications/tools/list_changed`).
    ToolsListChanged,
    /// Escape was pressed in the app's frame and the app did not take it: the host's own
    /// notification, sent by the script it puts in every app's document (see
    /// [`super::document`]). An app could send it itself; all it does is leave fullscreen.
    Escape,
}

/// The method of [`AppNotification::Escape`], in a namespace of the host's own.
pub const ESCAPE_METHOD: &str = "gemipanel/notifications/escape";

/// Why a request could not be read.
enum Unread {
    /// No such method here.
    Method,
    /// The params do not fit the method.
    Params(serde_json::Error),
}

impl AppRequest {
    fn read(method: &str, params: Value) -> Result<AppRequest, Unread> {
        // Dispatch on the method, then one plain serde type per method's params: a tagged enum
        // over all of them would make serde buffer every message.
        fn params_of<T: serde::de::DeserializeOwned>(params: Value) -> Result<T, Unread> {
            serde_json::from_value(params).map_err(Unread::Params)
        }
        Ok(match method {
            "ui/initialize" => AppRequest::Initialize(params_of(params)?),
            "tools/call" => AppRequest::CallTool(params_of(params)?),
            "tools/list" => AppRequest::ListTools,
            "resources/list" => AppRequest::ListResources,
            "resources/templates/list" => AppRequest::ListResourceTemplates,
            "resources/read" => AppRequest::ReadResource(params_of(params)?),
            "ui/open-link" => AppRequest::OpenLink(params_of(params)?),
            "ui/message" => AppRequest::Message(params_of(params)?),
            "ui/update-model-context" => AppRequest::UpdateModelContext(params_of(params)?),
            "ui/request-display-mode" => AppRequest::RequestDisplayMode(params_of(params)?),
            "ping" => AppRequest::Ping,
            "ui/log" => AppRequest::Log(LogParams::read(params)),
            _ => return Err(Unread::Method),
        })
    }
}

impl AppNotification {
    fn read(method: &str, params: Value) -> Option<AppNotification> {
        Some(match method {
            "ui/notifications/initialized" => AppNotification::Initialized,
            "ui/notifications/size-changed" => {
                AppNotification::SizeChanged(serde_json::from_value(params).ok()?)
            }
            "notifications/message" | "ui/log" => AppNotification::Log(LogParams::read(params)),
            "ui/notifications/request-teardown" => AppNotification::RequestTeardown,
            "notifications/tools/list_changed" => AppNotification::ToolsListChanged,
            ESCAPE_METHOD => AppNotification::Escape,
            _ => return None,
        })
    }
}

#[derive(Clone, Debug, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct InitializeParams {
    #[serde(default)]
    pub app_info: Option<Value>,
    #[serde(default)]
    pub app_capabilities: Option<Value>,
    #[serde(default)]
    pub protocol_version: Option<String>,
}

impl InitializeParams {
    /// What the app says it offers. Read leniently: a capability the host cannot read is one
    /// the app does not have, and the handshake goes on.
    pub fn capabilities(&self) -> AppCapabilities {
        self.app_capabilities
            .clone()
            .and_then(|c| serde_json::from_value(c).ok())
            .unwrap_or_default()
    }
}

/// `appCapabilities` of `ui/initialize`: the parts this host acts on.
#[derive(Clone, Debug, Default, PartialEq, Deserialize)]
pub struct AppCapabilities {
    /// The app exposes tools the host may list and call (`tools/list`, `tools/call`).
    #[serde(default)]
    pub tools: Option<AppToolsCapability>,
}

#[derive(Clone, Debug, Default, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AppToolsCapability {
    /// The app sends `notifications/tools/list_changed`.
    #[serde(default)]
    pub list_changed: Option<bool>,
}

/// The host's `tools/call` to one of the app's own tools (the app's answer is an MCP
/// `CallToolResult`; its `tools/list` answer an MCP `ListToolsResult`).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct CallViewToolParams {
    pub name: String,
    pub arguments: Map<String, Value>,
}

#[derive(Clone, Debug, PartialEq, Deserialize)]
pub struct CallToolParams {
    pub name: String,
    #[serde(default)]
    pub arguments: Map<String, Value>,
}

#[derive(Clone, Debug, PartialEq, Deserialize)]
pub struct ReadResourceParams {
    pub uri: String,
}

#[derive(Clone, Debug, PartialEq, Deserialize)]
pub struct OpenLinkParams {
    pub url: String,
}

#[derive(Clone, Debug, PartialEq, Deserialize)]
pub struct MessageParams {
    #[serde(default)]
    pub role: Option<String>,
    #[serde(default)]
    pub content: Vec<Value>,
}

#[derive(Clone, Debug, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ModelContextParams {
    #[serde(default)]
    pub content: Vec<Value>,
    #[serde(default)]
    pub structured_content: Option<Value>,
}

#[derive(Clone, Debug, PartialEq, Deserialize)]
pub struct DisplayModeParams {
    pub mode: DisplayMode,
}

#[derive(Clone, Debug, PartialEq, Deserialize)]
pub struct SizeParams {
    #[serde(default)]
    pub width: Option<f64>,
    #[serde(default)]
    pub height: Option<f64>,
}

/// A log entry of the app: the params of `notifications/message` (`level`, `logger`, `data`)
/// or of the older `ui/log` (`level`, `message`).
#[derive(Clone, Debug, PartialEq)]
pub struct LogParams {
    /// One of the eight RFC 5424 names MCP uses; `None` when absent or not a level.
    pub level: Option<&'static str>,
    pub logger: Option<String>,
    pub data: Value,
}

impl LogParams {
    /// Reads either shape, leniently: whatever the app sent is logged, a malformed entry as
    /// well as it can be (a field of the wrong type is left out; without `data` or `message`
    /// the params themselves are the entry).
    pub fn read(params: Value) -> LogParams {
        let Value::Object(mut fields) = params else {
            return LogParams { level: None, logger: None, data: params };
        };
        let level = fields.get("level").and_then(Value::as_str).and_then(log_level);
        let logger = fields.get("logger").and_then(Value::as_str).map(str::to_owned);
        let data = match fields.remove("data").or_else(|| fields.remove("message")) {
            Some(data) => data,
            None => Value::Object(fields),
        };
        LogParams { level, logger, data }
    }
}

/// A level as MCP names it (RFC 5424), from its name in any case or a console-style alias.
fn log_level(name: &str) -> Option<&'static str> {
    const LEVELS: [&str; 8] =
        ["debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"];
    let name = name.to_ascii_lowercase();
    let name = match name.as_str() {
        "trace" => "debug",
        "log" => "info",
        "warn" => "warning",
        "err" => "error",
        "fatal" => "critical",
        other => other,
    };
    LEVELS.into_iter().find(|level| *level == name)
}

/// One message from the app, read.
#[derive(Clone, Debug, PartialEq)]
pub enum FromApp {
    Request {
        id: Id,
        request: AppRequest,
    },
    /// A request whose method this host does not offer, or whose params do not fit it.
    Unsupported {
        id: Id,
        error: ErrorObject,
    },
    Notification(AppNotification),
    /// A notification this host has no use for.
    Ignored {
        method: String,
    },
    /// The answer to a request of the host (`ui/resource-teardown`, `ping`).
    Response {
        id: Option<Id>,
        outcome: Result<Value, ErrorObject>,
    },
}

impl FromApp {
    /// Reads one message; `None` when it is not JSON-RPC 2.0 at all.
    pub fn read(value: Value) -> Option<FromApp> {
        let message: Message = serde_json::from_value(value).ok()?;
        let empty = || Value::Object(Map::new());
        Some(match message {
            Message::Request(r) => {
                match AppRequest::read(&r.method, r.params.unwrap_or_else(empty)) {
                    Ok(request) => FromApp::Request { id: r.id, request },
                    Err(Unread::Params(e)) => FromApp::Unsupported {
                        id: r.id,
                        error: ErrorObject::new(
                            crate::jsonrpc::code::INVALID_PARAMS,
                            format!(
                                "{}: {}",
                                r.method,
                                crate::decode::without_strings(&e.to_string())
                            ),
                        ),
                    },
                    Err(Unread::Method) => FromApp::Unsupported {
                        id: r.id,
                        error: ErrorObject::new(
                            crate::jsonrpc::code::METHOD_NOT_FOUND,
                            format!("{} is not offered by this host", r.method),
                        ),
                    },
                }
            }
            Message::Notification(n) => {
                match AppNotification::read(&n.method, n.params.unwrap_or_else(empty)) {
                    Some(notification) => FromApp::Notification(notification),
                    None => FromApp::Ignored { method: n.method },
                }
            }
            Message::Response(r) => FromApp::Response { id: r.id, outcome: r.outcome },
        })
    }
}

/// `{"jsonrpc": "2.0", "method": …, "params": …}` for the app.
pub fn notification(method: &str, params: Value) -> Value {
    let message = Message::Notification(crate::jsonrpc::Notification {
        method: method.into(),
        params: Some(params),
    });
    serde_json::to_value(message).unwrap_or(Value::Null)
}

/// A request of the host to the app.
pub fn request(id: Id, method: &str, params: Value) -> Value {
    let message = Message::Request(crate::jsonrpc::Request {
        id,
        method: method.into(),
        params: Some(params),
    });
    serde_json::to_value(message).unwrap_or(Value::Null)
}

/// The answer to the app's request `id`.
pub fn response(id: Id, outcome: Result<Value, ErrorObject>) -> Value {
    let message = Message::Response(crate::jsonrpc::Response { id: Some(id), outcome });
    serde_json::to_value(message).unwrap_or(Value::Null)
}

/// Who the host is.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct HostInfo {
    pub name: String,
    pub version: String,
}

/// What the host context says; every field optional so that a change carries only what
/// changed (`ui/notifications/host-context-changed`).
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct HostContext {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tool_info: Option<ToolInfo>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub theme: Option<Theme>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub styles: Option<HostStyles>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub display_mode: Option<DisplayMode>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub available_display_modes: Option<Vec<DisplayMode>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub container_dimensions: Option<ContainerDimensions>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub locale: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub time_zone: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub user_agent: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub platform: Option<&'static str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub device_capabilities: Option<DeviceCapabilities>,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ToolInfo {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub id: Option<String>,
    pub tool: Value,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct HostStyles {
    /// CSS variables (`--color-background-primary`, …) and their values.
    pub variables: std::collections::BTreeMap<String, String>,
}

/// The room the app has: inline, its width and how tall it may grow; fullscreen and pip, the
/// fixed box it fills.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ContainerDimensions {
    pub width: u32,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub height: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_height: Option<u32>,
}

impl ContainerDimensions {
    pub fn growing(width: u32, max_height: u32) -> Self {
        ContainerDimensions { width, height: None, max_height: Some(max_height) }
    }

    pub fn fixed(width: u32, height: u32) -> Self {
        ContainerDimensions { width, height: Some(height), max_height: None }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct DeviceCapabilities {
    pub touch: bool,
    pub hover: bool,
}

/// The host's answer to `ui/initialize`.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct InitializeResult {
    pub protocol_version: String,
    pub host_info: HostInfo,
    pub host_capabilities: HostCapabilities,
    pub host_context: HostContext,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct HostCapabilities {
    pub open_links: Map<String, Value>,
    pub server_tools: Map<String, Value>,
    pub server_resources: Map<String, Value>,
    pub logging: Map<String, Value>,
    pub update_model_context: Modalities,
    pub message: Modalities,
    pub sandbox: SandboxGrant,
}

/// The content kinds accepted in `ui/message` and `ui/update-model-context`.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Modalities {
    pub text: Map<String, Value>,
    pub structured_content: Map<String, Value>,
}

/// What the host applied of the app's declaration.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct SandboxGrant {
    pub csp: DeclaredCsp,
    pub permissions: Permissions,
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn container_dimensions_say_growing_or_fixed_as_the_spec_has_them() {
        let inline = serde_json::to_value(ContainerDimensions::growing(300, 4000)).unwrap();
        assert_eq!(inline, json!({"width": 300, "maxHeight": 4000}));
        let fullscreen = serde_json::to_value(ContainerDimensions::fixed(420, 610)).unwrap();
        assert_eq!(fullscreen, json!({"width": 420, "height": 610}));
    }

    #[test]
    fn requests_are_read_by_method_with_typed_params() {
        let read = |v: Value| FromApp::read(v).unwrap();
        assert_eq!(
            read(json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
                        "params": {"name": "t", "arguments": {"a": 1}}})),
            FromApp::Request {
                id: Id::Number(1),
                request: AppRequest::CallTool(CallToolParams {
                    name: "t".into(),
                    arguments: json!({"a": 1}).as_object().unwrap().clone(),
                }),
            }
        );
        assert!(matches!(
            read(json!({"jsonrpc": "2.0", "id": "p", "method": "ping"})),
            FromApp::Request { request: AppRequest::Ping, .. }
        ));
        // What `App.listServerResources()` sends, with a cursor or without params.
        for params in [json!({"cursor": "next"}), json!({})] {
            assert!(matches!(
                read(
                    json!({"jsonrpc": "2.0", "id": 5, "method": "resources/list", "params": params})
                ),
                FromApp::Request { request: AppRequest::ListResources, .. }
            ));
        }
        assert!(matches!(
            read(json!({"jsonrpc": "2.0", "id": 6, "method": "resources/list"})),
            FromApp::Request { request: AppRequest::ListResources, .. }
        ));
        // What an app asks with `app.request({method: "resources/templates/list"})`.
        assert!(matches!(
            read(json!({"jsonrpc": "2.0", "id": 7, "method": "resources/templates/list",
                        "params": {}})),
            FromApp::Request { request: AppRequest::ListResourceTemplates, .. }
        ));
        assert!(matches!(
            read(json!({"jsonrpc": "2.0", "id": 2, "method": "ui/request-display-mode",
                        "params": {"mode": "fullscreen"}})),
            FromApp::Request {
                request: AppRequest::RequestDisplayMode(DisplayModeParams {
                    mode: DisplayMode::Fullscreen
                }),
                ..
            }
        ));
    }

    #[test]
    fn unknown_methods_and_bad_params_get_json_rpc_errors() {
        let FromApp::Unsupported { error, .. } =
            FromApp::read(json!({"jsonrpc": "2.0", "id": 3, "method": "sampling/createMessage"}))
                .unwrap()
        else {
            panic!()
        };
        assert_eq!(error.code, crate::jsonrpc::code::METHOD_NOT_FOUND);
        let FromApp::Unsupported { error, .. } = FromApp::read(
            json!({"jsonrpc": "2.0", "id": 4, "method": "tools/call", "params": {"name": 5}}),
        )
        .unwrap() else {
            panic!()
        };
        assert_eq!(error.code, crate::jsonrpc::code::INVALID_PARAMS);
    }

    #[test]
    fn anything_else_is_not_a_message() {
        for junk in [json!("hello"), json!({"type": "toolResult"}), json!([1, 2]), json!(null)] {
            assert_eq!(FromApp::read(junk.clone()), None, "{junk}");
        }
        assert_eq!(
            FromApp::read(json!({"jsonrpc": "2.0", "method": "ui/notifications/whatever"})),
            Some(FromApp::Ignored { method: "ui/notifications/whatever".into() })
        );
    }

    #[test]
    fn app_capabilities_are_read_leniently() {
        let params = |caps: Value| InitializeParams {
            app_info: None,
            app_capabilities: Some(caps),
            protocol_version: None,
        };
        let caps =
            params(json!({"tools": {"listChanged": true}, "availableDisplayModes": ["inline"]}))
                .capabilities();
        assert_eq!(caps.tools, Some(AppToolsCapability { list_changed: Some(true) }));
        assert_eq!(
            params(json!({"tools": {}})).capabilities().tools,
            Some(AppToolsCapability::default())
        );
        // Unreadable: no tools, and no failed handshake either.
        assert_eq!(params(json!({"tools": true})).capabilities().tools, None);
        assert_eq!(params(json!({})).capabilities().tools, None);
        assert_eq!(
            FromApp::read(json!({"jsonrpc": "2.0", "method": "notifications/tools/list_changed"})),
            Some(FromApp::Notification(AppNotification::ToolsListChanged))
        );
    }

    #[test]
    fn a_context_change_carries_only_what_changed() {
        let change = HostContext { theme: Some(Theme::Dark), ..HostContext::default() };
        assert_eq!(serde_json::to_value(change).unwrap(), json!({"theme": "dark"}));
    }
}
