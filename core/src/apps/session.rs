//! One app's conversation with its host, sans-IO: fed the app's messages and the host's events,
//! it returns what to post to the app and what the host should do (ask the worker, ask the
//! person, resize the frame).
//!
//! Nothing reaches the app before it says `ui/notifications/initialized`; the tool's input and
//! then its result (or its cancellation) follow, in that order, once each. Requests that need
//! work outside (a tool call, a link) are counted: past [`MAX_IN_FLIGHT`] an app's further
//! requests are refused at once, so a flood costs the host nothing but the refusals.
//!
//! An app that declared tools is asked for them once initialized and after each
//! `list_changed` ([`Action::ViewTools`]); the host calls them with
//! [`AppSession::call_view_tool`], answered by [`Action::ViewToolAnswered`]. Those requests
//! carry deadlines: `now` comes in with every input, [`AppSession::poll_timeout`] says when to
//! call [`AppSession::handle_timeout`].

use serde_json::{json, Map, Value};

use super::legacy::{LegacyError, LegacyFromApp, LegacyToApp, Ok as LegacyOk};
use super::model_context;
use super::protocol::{
    self, AppNotification, AppRequest, DisplayMode, FromApp, HostCapabilities, HostContext,
    HostInfo, InitializeResult,
};
use super::view_tools::{Answered, ViewCall, ViewTools};
use super::PROTOCOL_VERSION;
use crate::jsonrpc::{code, ErrorObject, Id};
use crate::mcp::{CallToolResult, Tool};

/// Requests of one app waiting for the host at once.
pub const MAX_IN_FLIGHT: usize = 16;

/// The tallest an app may make its inline frame, in CSS pixels.
pub const MAX_HEIGHT: u32 = 4000;

/// Where an answer goes.
#[derive(Clone, Debug, PartialEq)]
pub enum Reply {
    Rpc(Id),
    /// A legacy app's `tools/call`, by its own id.
    Legacy(Value),
}

/// What the host does next.
#[derive(Clone, Debug, PartialEq)]
pub enum Action {
    /// Post this message to the app.
    Post(Value),
    /// Call a tool of the app's own server (the worker checks that the app may).
    CallTool {
        reply: Reply,
        name: String,
        arguments: Map<String, Value>,
    },
    /// The app-visible tools of the app's own server.
    ListTools {
        reply: Reply,
    },
    /// The resources of the app's own server (`{resources}`, every page).
    ListResources {
        reply: Reply,
    },
    /// The resource templates of the app's own server (`{resourceTemplates}`, every page).
    ListResourceTemplates {
        reply: Reply,
    },
    /// Read a resource of the app's own server.
    ReadResource {
        reply: Reply,
        uri: String,
    },
    /// Open a link after the person agrees.
    OpenLink {
        reply: Reply,
        url: String,
    },
    /// Offer this text as the person's next chat message.
    Message {
        reply: Reply,
        text: String,
    },
    /// Send this with the next model request, replacing what the app sent before.
    UpdateContext {
        text: String,
    },
    DisplayMode {
        reply: Reply,
        mode: DisplayMode,
    },
    Resize {
        height: u32,
    },
    Log {
        level: String,
        text: String,
    },
    /// The app finished its start-up (`ui/notifications/initialized`).
    Initialized,
    /// The app asks to be closed.
    TeardownRequested,
    /// Escape was pressed in the app (and not taken by it): a fullscreen or pip view closes.
    Escape,
    /// The app answered `ui/resource-teardown`: its frame may go.
    TornDown,
    /// The app's own tools, replacing those it offered before.
    ViewTools(Vec<Tool>),
    /// The answer to [`AppSession::call_view_tool`] (or why there is none).
    ViewToolAnswered {
        call: ViewCall,
        outcome: Result<CallToolResult, String>,
    },
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Phase {
    /// Loaded; `ui/initialize` may come.
    Starting,
    /// Answered `ui/initialize`, waiting for `initialized`.
    Initializing,
    Ready,
    /// Never initialized: speaks the GemiHub messages.
    Legacy,
}

pub struct AppSession {
    phase: Phase,
    info: HostInfo,
    capabilities: HostCapabilities,
    context: HostContext,
    input: Option<Map<String, Value>>,
    result: Option<CallToolResult>,
    cancelled: Option<String>,
    input_sent: bool,
    end_sent: bool,
    in_flight: usize,
    next_id: i64,
    teardown: Option<Id>,
    view_tools: ViewTools,
}

impl AppSession {
    pub fn new(info: HostInfo, capabilities: HostCapabilities, context: HostContext) -> Self {
        AppSession {
            phase: Phase::Starting,
            info,
            capabilities,
            context,
            input: None,
            result: None,
            cancelled: None,
            input_sent: false,
            end_sent: false,
            in_flight: 0,
            next_id: 1,
            teardown: None,
            view_tools: ViewTools::default(),
        }
    }

    pub fn is_ready(&self) -> bool {
        self.phase == Phase::Ready
    }

    /// The app runs without the protocol, spoken to the GemiHub way.
    pub fn is_legacy(&self) -> bool {
        self.phase == Phase::Legacy
    }

    /// One message the app posted, at `now` (ms). `activated`: the person clicked or typed in
    /// the app just before (the browser's transient user activation, as the app's sandbox page
    /// saw it when it relayed the message; the app cannot set it).
    pub fn receive(&mut self, message: Value, activated: bool, now: u64) -> Vec<Action> {
        if let Some(legacy) = LegacyFromApp::read(&message) {
            return self.receive_legacy(legacy);
        }
        match FromApp::read(message) {
            Some(FromApp::Request { id, request: AppRequest::RequestDisplayMode(p) })
                if p.mode != DisplayMode::Inline && !activated =>
            {
                self.display_mode_refused(id, p.mode)
            }
            Some(FromApp::Request { id, request }) => self.request(id, request),
            Some(FromApp::Response { id: Some(id), outcome })
                if Some(&id) != self.teardown.as_ref() =>
            {
                match self.view_tools.answer(&id, outcome) {
                    Some(answered) => self.answered(answered, now),
                    // Nothing was asked under that id: not the app's to answer.
                    None => Vec::new(),
                }
            }
            Some(FromApp::Unsupported { id, error }) => {
                vec![Action::Post(protocol::response(id, Err(error)))]
            }
            Some(FromApp::Notification(n)) => self.notification(n, now),
            Some(FromApp::Response { id, .. }) => {
                if id.is_some() && id == self.teardown {
                    self.teardown = None;
                    vec![Action::TornDown]
                } else {
                    Vec::new()
                }
            }
            Some(FromApp::Ignored { .. }) | None => Vec::new(),
        }
    }

    /// An app may leave its place in the chat (fullscreen, picture-in-picture) only right after
    /// the person used it, so it cannot cover the chat on its own: the answer is the mode it
    /// keeps, as the specification has the host answer with the mode actually set.
    fn display_mode_refused(&self, id: Id, asked: DisplayMode) -> Vec<Action> {
        let mode = self.context.display_mode.unwrap_or(DisplayMode::Inline);
        let text = format!(
            "ui/request-display-mode refused: {} needs a click in the app just before",
            serde_json::to_value(asked)
                .ok()
                .and_then(|v| v.as_str().map(str::to_owned))
                .unwrap_or_default()
        );
        vec![
            Action::Log { level: "warning".into(), text },
            Action::Post(protocol::response(id, Ok(json!({ "mode": mode })))),
        ]
    }

    fn request(&mut self, id: Id, request: AppRequest) -> Vec<Action> {
        let reply = Reply::Rpc(id.clone());
        let work = match request {
            AppRequest::Initialize(params) => {
                self.view_tools.declared(&params.capabilities());
                return vec![self.initialize(id, params.protocol_version)];
            }
            AppRequest::Ping => return vec![Action::Post(protocol::response(id, Ok(empty())))],
            AppRequest::Log(log) => {
                return vec![log_action(log), Action::Post(protocol::response(id, Ok(empty())))];
            }
            AppRequest::UpdateModelContext(params) => {
                let text = context_text(&params.content, params.structured_content.as_ref());
                if let Err(error) = model_context::check(&text) {
                    return vec![Action::Post(protocol::response(id, Err(error)))];
                }
                return vec![
                    Action::UpdateContext { text },
                    Action::Post(protocol::response(id, Ok(empty()))),
                ];
            }
            AppRequest::Message(p) => {
                let text = texts(&p.content);
                if text.is_empty() || p.role.as_deref().is_some_and(|r| r != "user") {
                    let error = ErrorObject::new(
                        code::INVALID_PARAMS,
                        "ui/message takes a user message with text",
                    );
                    return vec![Action::Post(protocol::response(id, Err(error)))];
                }
                Action::Message { reply, text }
            }
            AppRequest::CallTool(p) => {
                Action::CallTool { reply, name: p.name, arguments: p.arguments }
            }
            AppRequest::ListTools => Action::ListTools { reply },
            AppRequest::ListResources => Action::ListResources { reply },
            AppRequest::ListResourceTemplates => Action::ListResourceTemplates { reply },
            AppRequest::ReadResource(p) => Action::ReadResource { reply, uri: p.uri },
            AppRequest::OpenLink(p) => Action::OpenLink { reply, url: p.url },
            AppRequest::RequestDisplayMode(p) => Action::DisplayMode { reply, mode: p.mode },
        };
        if self.in_flight >= MAX_IN_FLIGHT {
            let error = ErrorObject::new(code::INTERNAL_ERROR, "too many requests at once");
            return vec![Action::Post(protocol::response(id, Err(error)))];
        }
        self.in_flight += 1;
        vec![work]
    }

    fn initialize(&mut self, id: Id, asked: Option<String>) -> Action {
        // An app slow to start may have been taken for a legacy one and sent the GemiHub
        // result, which it ignores: it gets the result again the protocol's way.
        if self.phase == Phase::Legacy {
            self.end_sent = false;
        }
        self.phase = Phase::Initializing;
        // The older of the two versions (they are dates, so they compare as text).
        let version = asked
            .filter(|v| !v.is_empty() && v.as_str() <= PROTOCOL_VERSION)
            .unwrap_or_else(|| PROTOCOL_VERSION.to_owned());
        let result = InitializeResult {
            protocol_version: version,
            host_info: self.info.clone(),
            host_capabilities: self.capabilities.clone(),
            host_context: self.context.clone(),
        };
        let result = serde_json::to_value(result).unwrap_or(Value::Null);
        Action::Post(protocol::response(id, Ok(result)))
    }

    fn notification(&mut self, notification: AppNotification, now: u64) -> Vec<Action> {
        match notification {
            AppNotification::Initialized => {
                if self.phase == Phase::Ready {
                    return Vec::new();
                }
                self.phase = Phase::Ready;
                let mut actions = vec![Action::Initialized];
                actions.extend(self.flush());
                actions.extend(self.list_view_tools(now));
                // An app without tools of its own says so at once: a turn that waits for a
                // just-shown app's tools goes on.
                if !self.view_tools.offered() {
                    actions.push(Action::ViewTools(Vec::new()));
                }
                actions
            }
            // Only a ready app is asked anything.
            AppNotification::ToolsListChanged if self.phase == Phase::Ready => {
                self.list_view_tools(now)
            }
            AppNotification::ToolsListChanged => Vec::new(),
            AppNotification::SizeChanged(size) => match size.height {
                Some(h) if h.is_finite() => {
                    vec![Action::Resize { height: (h.max(0.0) as u32).min(MAX_HEIGHT) }]
                }
                _ => Vec::new(),
            },
            AppNotification::Log(log) => vec![log_action(log)],
            AppNotification::RequestTeardown => vec![Action::TeardownRequested],
            AppNotification::Escape => vec![Action::Escape],
        }
    }

    fn receive_legacy(&mut self, message: LegacyFromApp) -> Vec<Action> {
        match message {
            LegacyFromApp::CallTool { id, name, arguments } => {
                if self.in_flight >= MAX_IN_FLIGHT {
                    let error = LegacyError { message: "too many requests at once".into() };
                    let answer =
                        LegacyToApp::CallToolAnswer { id, result: None, error: Some(error) };
                    return vec![Action::Post(answer.to_value())];
                }
                self.in_flight += 1;
                vec![Action::CallTool { reply: Reply::Legacy(id), name, arguments }]
            }
            LegacyFromApp::UpdateContext { id, context } => {
                let text = match &context {
                    Value::String(s) => s.clone(),
                    other => other.to_string(),
                };
                // The same cap as `ui/update-model-context`; this older message has no error,
                // only `ok: false`.
                if let Err(error) = model_context::check(&text) {
                    let ack =
                        LegacyToApp::ContextAcknowledged { id, result: LegacyOk { ok: false } };
                    let log = Action::Log { level: "warning".into(), text: error.message };
                    return vec![log, Action::Post(ack.to_value())];
                }
                let ack = LegacyToApp::ContextAcknowledged { id, result: LegacyOk { ok: true } };
                vec![Action::UpdateContext { text }, Action::Post(ack.to_value())]
            }
        }
    }

    fn fresh_id(&mut self) -> i64 {
        let id = self.next_id;
        self.next_id += 1;
        id
    }

    fn list_view_tools(&mut self, now: u64) -> Vec<Action> {
        let id = self.fresh_id();
        self.view_tools.list(id, now).map(Action::Post).into_iter().collect()
    }

    /// Calls the app's own tool `name`: the request to post, or why it cannot be made now.
    pub fn call_view_tool(
        &mut self,
        name: &str,
        arguments: Map<String, Value>,
        now: u64,
    ) -> Result<(ViewCall, Action), String> {
        if self.phase != Phase::Ready {
            return Err("the app is not running".into());
        }
        let id = self.fresh_id();
        let (call, request) = self.view_tools.call(id, name, arguments, now)?;
        Ok((call, Action::Post(request)))
    }

    /// When [`AppSession::handle_timeout`] is due.
    pub fn poll_timeout(&self) -> Option<u64> {
        self.view_tools.deadline()
    }

    /// The requests to the app whose time ran out by `now`.
    pub fn handle_timeout(&mut self, now: u64) -> Vec<Action> {
        let expired = self.view_tools.expire(now);
        expired.into_iter().flat_map(|answered| self.answered(answered, now)).collect()
    }

    fn answered(&mut self, answered: Answered, now: u64) -> Vec<Action> {
        let mut actions = match answered {
            Answered::Called { call, outcome } => {
                return vec![Action::ViewToolAnswered { call, outcome }]
            }
            Answered::ListFailed(why) => vec![Action::Log { level: "warning".into(), text: why }],
            Answered::Listed { tools, warnings } => {
                let mut actions: Vec<Action> = warnings
                    .into_iter()
                    .map(|text| Action::Log { level: "warning".into(), text })
                    .collect();
                actions.push(Action::ViewTools(tools));
                actions
            }
        };
        if self.view_tools.take_relist() {
            actions.extend(self.list_view_tools(now));
        }
        actions
    }

    /// The host's answer to a request it was handed ([`Action`]s with a [`Reply`]).
    pub fn answer(&mut self, reply: Reply, outcome: Result<Value, ErrorObject>) -> Action {
        self.in_flight = self.in_flight.saturating_sub(1);
        match reply {
            Reply::Rpc(id) => Action::Post(protocol::response(id, outcome)),
            Reply::Legacy(id) => {
                let answer = match outcome {
                    Ok(value) => {
                        let result: Option<CallToolResult> = serde_json::from_value(value).ok();
                        return Action::Post(
                            LegacyToApp::CallToolAnswer {
                                id,
                                result: result.as_ref(),
                                error: None,
                            }
                            .to_value(),
                        );
                    }
                    Err(error) => LegacyToApp::CallToolAnswer {
                        id,
                        result: None,
                        error: Some(LegacyError { message: error.message }),
                    },
                };
                Action::Post(answer.to_value())
            }
        }
    }

    /// The arguments the tool was called with.
    pub fn tool_input(&mut self, arguments: Map<String, Value>) -> Vec<Action> {
        self.input = Some(arguments);
        self.flush()
    }

    /// The call's result; one that comes after the person stopped the call is not the app's.
    pub fn tool_result(&mut self, result: CallToolResult) -> Vec<Action> {
        if self.cancelled.is_some() {
            return Vec::new();
        }
        self.result = Some(result);
        if self.phase == Phase::Legacy {
            return self.legacy_result();
        }
        self.flush()
    }

    /// The person stopped the call; a stop that comes after its result changes nothing.
    pub fn tool_cancelled(&mut self, reason: &str) -> Vec<Action> {
        if self.result.is_some() {
            return Vec::new();
        }
        self.cancelled = Some(reason.to_owned());
        self.flush()
    }

    /// The frame has loaded and the app did not start the protocol: from now on it is a
    /// legacy app, and gets the result the GemiHub way.
    pub fn loaded_without_initialize(&mut self) -> Vec<Action> {
        if self.phase != Phase::Starting {
            return Vec::new();
        }
        self.phase = Phase::Legacy;
        self.legacy_result()
    }

    fn legacy_result(&mut self) -> Vec<Action> {
        match (&self.result, self.end_sent) {
            (Some(result), false) => {
                self.end_sent = true;
                vec![Action::Post(LegacyToApp::ToolResult { result }.to_value())]
            }
            _ => Vec::new(),
        }
    }

    /// Theme, size, language or display mode changed.
    pub fn context_changed(&mut self, change: HostContext) -> Vec<Action> {
        merge(&mut self.context, change.clone());
        if self.phase != Phase::Ready {
            return Vec::new();
        }
        let params = serde_json::to_value(change).unwrap_or(Value::Null);
        vec![Action::Post(protocol::notification("ui/notifications/host-context-changed", params))]
    }

    /// Asks the app to clean up before its frame goes (answered with [`Action::TornDown`]).
    /// Calls of its tools still waiting fail at once.
    pub fn teardown(&mut self) -> Vec<Action> {
        let mut actions: Vec<Action> = self
            .view_tools
            .close("the app was closed")
            .into_iter()
            .filter_map(|answered| match answered {
                Answered::Called { call, outcome } => {
                    Some(Action::ViewToolAnswered { call, outcome })
                }
                _ => None,
            })
            .collect();
        if self.phase != Phase::Ready {
            actions.push(Action::TornDown);
            return actions;
        }
        let id = Id::Number(self.fresh_id());
        self.teardown = Some(id.clone());
        actions.push(Action::Post(protocol::request(id, "ui/resource-teardown", empty())));
        actions
    }

    /// What may be sent now: the input once, then the result or the cancellation once.
    fn flush(&mut self) -> Vec<Action> {
        if self.phase != Phase::Ready {
            return Vec::new();
        }
        let mut actions = Vec::new();
        if !self.input_sent {
            if let Some(input) = &self.input {
                self.input_sent = true;
                let params = serde_json::json!({ "arguments": input });
                actions.push(Action::Post(protocol::notification(
                    "ui/notifications/tool-input",
                    params,
                )));
            }
        }
        if !self.end_sent && self.input_sent {
            if let Some(result) = &self.result {
                self.end_sent = true;
                let params = serde_json::to_value(result).unwrap_or(Value::Null);
                actions.push(Action::Post(protocol::notification(
                    "ui/notifications/tool-result",
                    params,
                )));
            } else if let Some(reason) = &self.cancelled {
                self.end_sent = true;
                let params = serde_json::json!({ "reason": reason });
                actions.push(Action::Post(protocol::notification(
                    "ui/notifications/tool-cancelled",
                    params,
                )));
            }
        }
        actions
    }
}

fn empty() -> Value {
    Value::Object(Map::new())
}

/// An entry of the app log, from `notifications/message` or `ui/log`.
fn log_action(log: protocol::LogParams) -> Action {
    let text = match log.data {
        Value::String(s) => s,
        other => other.to_string(),
    };
    let text = match &log.logger {
        Some(logger) => format!("[{logger}] {text}"),
        None => text,
    };
    let level = log.level.unwrap_or("info").to_owned();
    Action::Log { level, text: text.chars().take(2000).collect() }
}

/// The text blocks of content, joined by blank lines.
fn texts(content: &[Value]) -> String {
    let parts: Vec<&str> = content
        .iter()
        .filter(|b| b.get("type").and_then(Value::as_str) == Some("text"))
        .filter_map(|b| b.get("text").and_then(Value::as_str))
        .collect();
    parts.join("\n\n")
}

/// What the model reads of an app's context update: its text, then its structured content.
fn context_text(content: &[Value], structured: Option<&Value>) -> String {
    let mut text = texts(content);
    if let Some(structured) = structured {
        if !text.is_empty() {
            text.push_str("\n\n");
        }
        text.push_str(&structured.to_string());
    }
    text
}

fn merge(into: &mut HostContext, change: HostContext) {
    macro_rules! take {
        ($($field:ident),*) => { $( if change.$field.is_some() { into.$field = change.$field; } )* };
    }
    take!(
        tool_info,
        theme,
        styles,
        display_mode,
        available_display_modes,
        container_dimensions,
        locale,
        time_zone,
        user_agent,
        platform,
        device_capabilities
    );
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::apps::protocol::Theme;
    use serde_json::json;

    fn session() -> AppSession {
        let info = HostInfo { name: "GemiPanel".into(), version: "1.0".into() };
        let context = HostContext {
            theme: Some(Theme::Light),
            locale: Some("ja".into()),
            ..HostContext::default()
        };
        AppSession::new(info, HostCapabilities::default(), context)
    }

    fn posted(actions: &[Action]) -> Vec<Value> {
        actions
            .iter()
            .filter_map(|a| if let Action::Post(v) = a { Some(v.clone()) } else { None })
            .collect()
    }

    fn methods(actions: &[Action]) -> Vec<String> {
        posted(actions).iter().filter_map(|v| v["method"].as_str().map(str::to_owned)).collect()
    }

    /// A message sent right after the person used the app.
    fn receive(s: &mut AppSession, message: Value) -> Vec<Action> {
        s.receive(message, true, 0)
    }

    fn initialize(s: &mut AppSession) -> Vec<Action> {
        let mut actions = receive(
            s,
            json!({"jsonrpc": "2.0", "id": 1, "method": "ui/initialize",
            "params": {"appInfo": {"name": "a", "version": "1"}, "appCapabilities": {}, "protocolVersion": "2026-01-26"}}),
        );
        actions.extend(receive(
            s,
            json!({"jsonrpc": "2.0", "method": "ui/notifications/initialized"}),
        ));
        actions
    }

    fn result(text: &str) -> CallToolResult {
        serde_json::from_value(json!({"content": [{"type": "text", "text": text}]})).unwrap()
    }

    #[test]
    fn initialize_answers_with_the_host_and_its_context() {
        let mut s = session();
        let actions = receive(
            &mut s,
            json!({"jsonrpc": "2.0", "id": 1, "method": "ui/initialize",
            "params": {"protocolVersion": "2099-01-01"}}),
        );
        let answer = &posted(&actions)[0];
        assert_eq!(answer["id"], 1);
        assert_eq!(answer["result"]["protocolVersion"], PROTOCOL_VERSION);
        assert_eq!(answer["result"]["hostInfo"]["name"], "GemiPanel");
        assert_eq!(answer["result"]["hostContext"], json!({"theme": "light", "locale": "ja"}));
    }

    #[test]
    fn nothing_reaches_the_app_before_it_has_initialized() {
        let mut s = session();
        assert!(s.tool_input(Map::new()).is_empty());
        assert!(s.tool_result(result("done")).is_empty());
        assert!(s
            .context_changed(HostContext { theme: Some(Theme::Dark), ..HostContext::default() })
            .is_empty());
        let actions = initialize(&mut s);
        assert_eq!(actions[1], Action::Initialized);
        assert_eq!(
            methods(&actions),
            ["ui/notifications/tool-input", "ui/notifications/tool-result"]
        );
        // The dark theme set meanwhile is in the context the app was given.
        let init = &posted(&actions)[0];
        assert_eq!(init["result"]["hostContext"]["theme"], "dark");
    }

    #[test]
    fn input_then_result_once_each_in_that_order() {
        let mut s = session();
        initialize(&mut s);
        assert!(s.tool_result(result("early")).is_empty(), "no result before the input");
        let actions = s.tool_input(json!({"q": 1}).as_object().unwrap().clone());
        assert_eq!(
            methods(&actions),
            ["ui/notifications/tool-input", "ui/notifications/tool-result"]
        );
        assert_eq!(posted(&actions)[0]["params"], json!({"arguments": {"q": 1}}));
        assert!(s.tool_result(result("again")).is_empty());
        assert!(s.tool_cancelled("late").is_empty());
    }

    #[test]
    fn a_cancelled_call_is_told_instead_of_a_result() {
        let mut s = session();
        initialize(&mut s);
        s.tool_input(Map::new());
        let actions = s.tool_cancelled("user action");
        assert_eq!(methods(&actions), ["ui/notifications/tool-cancelled"]);
        assert_eq!(posted(&actions)[0]["params"]["reason"], "user action");
    }

    #[test]
    fn what_ended_the_call_first_is_what_the_app_hears_even_before_it_started() {
        let result: CallToolResult = serde_json::from_value(json!({"content": []})).unwrap();
        // Stopped, then a late result: the app, starting only now, hears of the stop alone.
        let mut s = session();
        s.tool_input(Map::new());
        assert!(s.tool_cancelled("user action").is_empty());
        assert!(s.tool_result(result.clone()).is_empty());
        let actions = initialize(&mut s);
        assert_eq!(
            methods(&actions),
            ["ui/notifications/tool-input", "ui/notifications/tool-cancelled"]
        );
        // Finished, then a stop that came too late: the result stands.
        let mut s = session();
        s.tool_input(Map::new());
        s.tool_result(result);
        assert!(s.tool_cancelled("user action").is_empty());
        let actions = initialize(&mut s);
        assert_eq!(
            methods(&actions),
            ["ui/notifications/tool-input", "ui/notifications/tool-result"]
        );
    }

    #[test]
    fn requests_become_host_work_and_answers_go_back_by_id() {
        let mut s = session();
        initialize(&mut s);
        let actions = receive(
            &mut s,
            json!({"jsonrpc": "2.0", "id": "c1", "method": "tools/call",
            "params": {"name": "refresh", "arguments": {"n": 2}}}),
        );
        let [Action::CallTool { reply, name, .. }] = actions.as_slice() else {
            panic!("{actions:?}")
        };
        assert_eq!(name, "refresh");
        let Action::Post(answer) = s.answer(reply.clone(), Ok(json!({"content": []}))) else {
            panic!()
        };
        assert_eq!(answer, json!({"jsonrpc": "2.0", "id": "c1", "result": {"content": []}}));
    }

    #[test]
    fn the_own_server_resources_are_listed_and_read_as_the_capability_says() {
        let mut s = session();
        let init = initialize(&mut s);
        let answer = posted(&init).into_iter().find(|m| m["id"] == 1).unwrap();
        assert!(answer["result"]["hostCapabilities"]["serverResources"].is_object());
        let list =
            receive(&mut s, json!({"jsonrpc": "2.0", "id": "l", "method": "resources/list"}));
        let [Action::ListResources { reply }] = list.as_slice() else { panic!("{list:?}") };
        let listed = json!({"resources": [{"uri": "memo://a", "name": "a"}]});
        let Action::Post(answer) = s.answer(reply.clone(), Ok(listed.clone())) else { panic!() };
        assert_eq!(answer, json!({"jsonrpc": "2.0", "id": "l", "result": listed}));
        let templates = receive(
            &mut s,
            json!({"jsonrpc": "2.0", "id": "t", "method": "resources/templates/list"}),
        );
        assert!(matches!(&templates[..], [Action::ListResourceTemplates { .. }]), "{templates:?}");
        let read = receive(
            &mut s,
            json!({"jsonrpc": "2.0", "id": "r", "method": "resources/read",
                   "params": {"uri": "memo://a"}}),
        );
        assert!(
            matches!(&read[..], [Action::ReadResource { uri, .. }] if uri == "memo://a"),
            "{read:?}"
        );
    }

    #[test]
    fn a_flood_of_requests_is_refused_past_the_cap() {
        let mut s = session();
        initialize(&mut s);
        let mut work = 0;
        let mut refused = 0;
        for i in 0..10_000 {
            for action in receive(
                &mut s,
                json!({"jsonrpc": "2.0", "id": i, "method": "tools/call", "params": {"name": "x"}}),
            ) {
                match action {
                    Action::CallTool { .. } => work += 1,
                    Action::Post(v) if v["error"]["code"] == code::INTERNAL_ERROR => refused += 1,
                    other => panic!("{other:?}"),
                }
            }
        }
        assert_eq!((work, refused), (MAX_IN_FLIGHT, 10_000 - MAX_IN_FLIGHT));
        // An answer frees a place.
        s.answer(Reply::Rpc(Id::Number(0)), Ok(json!({})));
        let actions = receive(
            &mut s,
            json!({"jsonrpc": "2.0", "id": "n", "method": "tools/call", "params": {"name": "x"}}),
        );
        assert!(matches!(actions[0], Action::CallTool { .. }));
    }

    #[test]
    fn messages_context_sizes_and_logs() {
        let mut s = session();
        initialize(&mut s);
        let actions = receive(
            &mut s,
            json!({"jsonrpc": "2.0", "id": 2, "method": "ui/message",
            "params": {"role": "user", "content": [{"type": "text", "text": "Show me more"}]}}),
        );
        assert!(matches!(&actions[0], Action::Message { text, .. } if text == "Show me more"));
        let refused = receive(
            &mut s,
            json!({"jsonrpc": "2.0", "id": 3, "method": "ui/message",
            "params": {"role": "user", "content": [{"type": "image", "data": "…"}]}}),
        );
        assert_eq!(posted(&refused)[0]["error"]["code"], code::INVALID_PARAMS);
        let context = receive(
            &mut s,
            json!({"jsonrpc": "2.0", "id": 4, "method": "ui/update-model-context",
            "params": {"content": [{"type": "text", "text": "Selected: B"}], "structuredContent": {"row": 2}}}),
        );
        assert_eq!(context[0], Action::UpdateContext { text: "Selected: B\n\n{\"row\":2}".into() });
        assert_eq!(posted(&context)[0]["result"], json!({}));
        let size = receive(
            &mut s,
            json!({"jsonrpc": "2.0", "method": "ui/notifications/size-changed", "params": {"height": 1e12}}),
        );
        assert_eq!(size, [Action::Resize { height: MAX_HEIGHT }]);
        // The Escape the host's script in the app's document relays.
        let escape = receive(
            &mut s,
            json!({"jsonrpc": "2.0", "method": crate::apps::protocol::ESCAPE_METHOD}),
        );
        assert_eq!(escape, [Action::Escape]);
        let log = receive(
            &mut s,
            json!({"jsonrpc": "2.0", "method": "notifications/message",
            "params": {"level": "warning", "logger": "chart", "data": {"n": 1}}}),
        );
        assert_eq!(
            log,
            [Action::Log { level: "warning".into(), text: "[chart] {\"n\":1}".into() }]
        );
    }

    #[test]
    fn leaving_the_chat_s_place_needs_a_click_in_the_app_going_back_does_not() {
        let mut s = session();
        initialize(&mut s);
        let ask = |id: i64, mode: &str| json!({"jsonrpc": "2.0", "id": id, "method": "ui/request-display-mode", "params": {"mode": mode}});
        for (id, mode) in [(7, "fullscreen"), (8, "pip")] {
            let refused = s.receive(ask(id, mode), false, 0);
            assert!(
                !refused.iter().any(|a| matches!(a, Action::DisplayMode { .. })),
                "{refused:?}"
            );
            assert_eq!(posted(&refused)[0]["result"], json!({"mode": "inline"}));
            assert!(matches!(&refused[0], Action::Log { text, .. } if text.contains(mode)));
        }
        let clicked = s.receive(ask(9, "fullscreen"), true, 0);
        assert!(matches!(clicked[0], Action::DisplayMode { mode: DisplayMode::Fullscreen, .. }));
        let back = s.receive(ask(10, "inline"), false, 0);
        assert!(matches!(back[0], Action::DisplayMode { mode: DisplayMode::Inline, .. }));
    }

    #[test]
    fn a_legacy_app_s_context_has_the_same_cap() {
        let mut s = session();
        let big = "x".repeat(model_context::MAX_CHARS + 1);
        let refused = receive(&mut s, json!({"type": "context/update", "id": 7, "context": big}));
        assert!(!refused.iter().any(|a| matches!(a, Action::UpdateContext { .. })), "{refused:?}");
        assert_eq!(
            posted(&refused)[0],
            json!({"type": "context/update", "id": 7, "result": {"ok": false}})
        );
    }

    #[test]
    fn a_model_context_over_the_cap_is_refused_and_passes_nothing_on() {
        let mut s = session();
        initialize(&mut s);
        let big = "x".repeat(model_context::MAX_CHARS + 1);
        let refused = receive(
            &mut s,
            json!({"jsonrpc": "2.0", "id": 5, "method": "ui/update-model-context",
            "params": {"content": [{"type": "text", "text": big}]}}),
        );
        assert_eq!(refused.len(), 1, "{refused:?}");
        assert_eq!(posted(&refused)[0]["error"]["code"], code::INVALID_PARAMS);
    }

    #[test]
    fn ui_log_goes_where_notifications_message_goes() {
        let mut s = session();
        initialize(&mut s);
        let log = |level: &str, text: &str| Action::Log { level: level.into(), text: text.into() };
        // The `notifications/message` shape and the plain `{level, message}` one, as a
        // notification (what 1.x-era apps sent) and as a request, answered `{}`.
        let mcp_shape = json!({"level": "error", "logger": "chart", "data": {"n": 1}});
        assert_eq!(
            receive(&mut s, json!({"jsonrpc": "2.0", "method": "ui/log", "params": mcp_shape})),
            receive(
                &mut s,
                json!({"jsonrpc": "2.0", "method": "notifications/message", "params": mcp_shape})
            )
        );
        assert_eq!(
            receive(&mut s, json!({"jsonrpc": "2.0", "method": "ui/log", "params": mcp_shape})),
            [log("error", "[chart] {\"n\":1}")]
        );
        assert_eq!(
            receive(
                &mut s,
                json!({"jsonrpc": "2.0", "method": "ui/log",
                       "params": {"level": "warn", "message": "slow render"}})
            ),
            [log("warning", "slow render")]
        );
        let asked = receive(
            &mut s,
            json!({"jsonrpc": "2.0", "id": 9, "method": "ui/log",
                   "params": {"message": "ready"}}),
        );
        assert_eq!(asked[0], log("info", "ready"));
        assert_eq!(posted(&asked), [json!({"jsonrpc": "2.0", "id": 9, "result": {}})]);
        // Malformed params are logged as well as they can be, never refused or dropped; a
        // level that is not one is `info` (it names a style in the panel).
        for (params, expected) in [
            (json!("just text"), log("info", "just text")),
            (json!({"level": 3, "message": ["a", 1]}), log("info", "[\"a\",1]")),
            (json!({"level": "x y", "logger": 7, "data": null}), log("info", "null")),
            (json!([1, 2]), log("info", "[1,2]")),
            (json!({"level": "ERROR"}), log("error", "{\"level\":\"ERROR\"}")),
        ] {
            let notified =
                receive(&mut s, json!({"jsonrpc": "2.0", "method": "ui/log", "params": params}));
            assert_eq!(notified.len(), 1, "{params}");
            assert_eq!(notified[0], expected, "{params}");
            let asked = receive(
                &mut s,
                json!({"jsonrpc": "2.0", "id": "l", "method": "ui/log", "params": params}),
            );
            assert_eq!(asked[0], expected, "{params}");
            assert_eq!(posted(&asked)[0]["result"], json!({}), "{params}");
        }
        assert_eq!(
            receive(&mut s, json!({"jsonrpc": "2.0", "method": "ui/log"})),
            [log("info", "{}")]
        );
    }

    #[test]
    fn teardown_waits_for_the_app_answer() {
        let mut s = session();
        initialize(&mut s);
        let actions = s.teardown();
        let request = &posted(&actions)[0];
        assert_eq!(request["method"], "ui/resource-teardown");
        let id = request["id"].clone();
        assert!(receive(&mut s, json!({"jsonrpc": "2.0", "id": 99, "result": {}})).is_empty());
        assert_eq!(
            receive(&mut s, json!({"jsonrpc": "2.0", "id": id, "result": {}})),
            [Action::TornDown]
        );
        // An app that never started goes at once.
        assert_eq!(session().teardown(), [Action::TornDown]);
    }

    #[test]
    fn an_app_slow_to_initialize_still_gets_its_result() {
        let mut s = session();
        s.tool_input(Map::new());
        s.tool_result(result("late start"));
        assert_eq!(posted(&s.loaded_without_initialize())[0]["type"], "toolResult");
        let actions = initialize(&mut s);
        assert_eq!(
            methods(&actions),
            ["ui/notifications/tool-input", "ui/notifications/tool-result"]
        );
    }

    #[test]
    fn an_app_that_never_initializes_speaks_the_legacy_messages() {
        let mut s = session();
        s.tool_input(Map::new());
        s.tool_result(result("42"));
        let actions = s.loaded_without_initialize();
        assert_eq!(posted(&actions)[0]["type"], "toolResult");
        assert_eq!(posted(&actions)[0]["result"]["content"][0]["text"], "42");
        let call =
            receive(&mut s, json!({"type": "tools/call", "id": 5, "name": "t", "arguments": {}}));
        let [Action::CallTool { reply, .. }] = call.as_slice() else { panic!("{call:?}") };
        let Action::Post(answer) = s.answer(reply.clone(), Ok(json!({"content": []}))) else {
            panic!()
        };
        assert_eq!(answer, json!({"type": "tools/call", "id": 5, "result": {"content": []}}));
        let ack = receive(&mut s, json!({"type": "context/update", "id": 6, "context": "x"}));
        assert_eq!(
            posted(&ack)[0],
            json!({"type": "context/update", "id": 6, "result": {"ok": true}})
        );
    }

    /// An app that declares tools, initialized; the host's `tools/list` to it.
    fn with_tools(s: &mut AppSession) -> Value {
        receive(
            s,
            json!({"jsonrpc": "2.0", "id": 1, "method": "ui/initialize",
            "params": {"appCapabilities": {"tools": {"listChanged": true}}}}),
        );
        let actions =
            receive(s, json!({"jsonrpc": "2.0", "method": "ui/notifications/initialized"}));
        let list = posted(&actions).pop().unwrap();
        assert_eq!(list["method"], "tools/list");
        list
    }

    fn list_answer(id: &Value, names: &[&str]) -> Value {
        let tools: Vec<Value> =
            names.iter().map(|n| json!({"name": n, "inputSchema": {"type": "object"}})).collect();
        json!({"jsonrpc": "2.0", "id": id, "result": {"tools": tools}})
    }

    fn view_tools(actions: &[Action]) -> Option<Vec<String>> {
        actions.iter().find_map(|a| match a {
            Action::ViewTools(tools) => Some(tools.iter().map(|t| t.name.clone()).collect()),
            _ => None,
        })
    }

    #[test]
    fn an_app_without_tools_says_so_once_initialized_one_with_tools_once_listed() {
        let mut s = session();
        let none = initialize(&mut s);
        assert_eq!(view_tools(&none), Some(Vec::new()), "{none:?}");
        let mut s = session();
        let list = with_tools(&mut s);
        let listed = receive(&mut s, list_answer(&list["id"], &["get_selection"]));
        assert_eq!(view_tools(&listed), Some(vec!["get_selection".to_owned()]));
    }

    #[test]
    fn an_app_that_declares_tools_is_asked_for_them_once_initialized() {
        let mut s = session();
        let declared = receive(
            &mut s,
            json!({"jsonrpc": "2.0", "id": 1, "method": "ui/initialize",
            "params": {"appCapabilities": {"tools": {}}}}),
        );
        assert_eq!(methods(&declared), Vec::<String>::new(), "nothing before initialized");
        assert!(receive(
            &mut s,
            json!({"jsonrpc": "2.0", "method": "notifications/tools/list_changed"})
        )
        .is_empty());
        let s2 = &mut session();
        let list = with_tools(s2);
        let actions = receive(s2, list_answer(&list["id"], &["get_selection"]));
        assert_eq!(view_tools(&actions), Some(vec!["get_selection".to_owned()]));
        // An app without the capability is never asked.
        let mut plain = session();
        assert!(!methods(&initialize(&mut plain)).contains(&"tools/list".to_owned()));
        assert!(receive(
            &mut plain,
            json!({"jsonrpc": "2.0", "method": "notifications/tools/list_changed"})
        )
        .is_empty());
        assert!(plain.call_view_tool("x", Map::new(), 0).is_err());
    }

    #[test]
    fn list_changed_asks_again_and_replaces_the_tools() {
        let mut s = session();
        let list = with_tools(&mut s);
        receive(&mut s, list_answer(&list["id"], &["a"]));
        let again = receive(
            &mut s,
            json!({"jsonrpc": "2.0", "method": "notifications/tools/list_changed"}),
        );
        let request = posted(&again).pop().unwrap();
        assert_eq!(request["method"], "tools/list");
        assert_ne!(request["id"], list["id"], "a fresh id");
        let actions = receive(&mut s, list_answer(&request["id"], &["b", "c"]));
        assert_eq!(view_tools(&actions), Some(vec!["b".to_owned(), "c".to_owned()]));
    }

    #[test]
    fn the_host_calls_a_view_tool_and_gets_its_answer_by_id() {
        let mut s = session();
        assert_eq!(s.call_view_tool("a", Map::new(), 0).unwrap_err(), "the app is not running");
        let list = with_tools(&mut s);
        receive(&mut s, list_answer(&list["id"], &["get_selection"]));
        let (call, Action::Post(request)) =
            s.call_view_tool("get_selection", Map::new(), 5).unwrap()
        else {
            panic!()
        };
        assert_eq!(request["method"], "tools/call");
        assert_eq!(request["params"]["name"], "get_selection");
        // A reply under another id, or a request of the app with the same id, is not the answer.
        let stray = json!({"jsonrpc": "2.0", "id": 12345, "result": {"content": []}});
        assert!(receive(&mut s, stray).is_empty());
        let answer = receive(
            &mut s,
            json!({"jsonrpc": "2.0", "id": request["id"],
            "result": {"content": [{"type": "text", "text": "B2"}]}}),
        );
        let [Action::ViewToolAnswered { call: answered, outcome: Ok(result) }] = answer.as_slice()
        else {
            panic!("{answer:?}")
        };
        assert_eq!(*answered, call);
        assert_eq!(serde_json::to_value(&result.content).unwrap()[0]["text"], "B2");
    }

    #[test]
    fn an_app_that_never_answers_times_out_and_closing_fails_the_rest() {
        let mut s = session();
        let list = with_tools(&mut s);
        receive(&mut s, list_answer(&list["id"], &["t"]));
        assert_eq!(s.poll_timeout(), None);
        let (first, _) = s.call_view_tool("t", Map::new(), 1_000).unwrap();
        let (second, _) = s.call_view_tool("t", Map::new(), 2_000).unwrap();
        let due = s.poll_timeout().unwrap();
        assert_eq!(due, 1_000 + crate::apps::view_tools::CALL_TIMEOUT_MS);
        let expired = s.handle_timeout(due);
        assert_eq!(
            expired,
            [Action::ViewToolAnswered {
                call: first,
                outcome: Err("the app did not answer in time".into())
            }]
        );
        let closed = s.teardown();
        assert_eq!(
            closed[0],
            Action::ViewToolAnswered { call: second, outcome: Err("the app was closed".into()) }
        );
        assert_eq!(methods(&closed), ["ui/resource-teardown"]);
    }

    #[test]
    fn a_list_that_never_comes_is_logged_and_the_tools_stay_unoffered() {
        let mut s = session();
        with_tools(&mut s);
        let due = s.poll_timeout().unwrap();
        let actions = s.handle_timeout(due);
        assert!(
            matches!(&actions[..], [Action::Log { level, .. }] if level == "warning"),
            "{actions:?}"
        );
        assert!(s.call_view_tool("t", Map::new(), due).is_err());
    }
}
