//! What the side panel does for the MCP Apps in its chat: the work an app's requests need from
//! the worker (always on the app's own server; the worker decides what an app may call, and
//! when the person is asked first).

use std::rc::Rc;

use gemipanel_browser::port::WorkerPort;
use gemipanel_core::apps::frame_wire::HostWork;
use gemipanel_core::chats::activity::{Activity, Asker, Outcome, ToolActivity};
use gemipanel_core::decode::Lenient;
use gemipanel_core::jsonrpc::{code, ErrorObject};
use gemipanel_core::mcp::{ListResourcesResult, ListToolsResult, Visibility};
use gemipanel_core::messages::{AppConsent, Caller, Request, Response};
use gemipanel_core::settings::{ServerId, SettingsEdit};
use serde_json::{Map, Value};
use yew::Callback;

use crate::chat_driver::Driver;
use crate::components::app_call_ask::{AppAnswer, AppAsk, AppAsks};

/// Shared by every app frame of the panel (a Yew context).
#[derive(Clone)]
pub struct AppServices {
    pub port: Rc<WorkerPort>,
    pub driver: Driver,
    /// Offers a text as the person's next message.
    pub offer: Callback<String>,
}

impl PartialEq for AppServices {
    fn eq(&self, other: &Self) -> bool {
        Rc::ptr_eq(&self.port, &other.port)
    }
}

/// The app a request comes from: the model's call that showed it.
pub struct AppOrigin {
    pub call_id: String,
    pub server_id: String,
    pub server_name: String,
    /// The tool whose call showed the app.
    pub tool: String,
}

/// What an app is told when the person denies its call.
const DENIED: &str = "The user denied this tool call.";

impl AppServices {
    /// Carries out `work` on the app's server for `app`; a tool call the worker wants the
    /// person to allow first is asked about in the app's card (`asks`). Tool calls go into the
    /// chat's activity.
    pub async fn run(
        &self,
        app: &AppOrigin,
        work: HostWork,
        asks: &AppAsks,
    ) -> Result<Value, ErrorObject> {
        let server_id = crate::chat_driver::server_id(&app.server_id);
        let request = match work {
            HostWork::CallTool { name, arguments } => {
                let started_ms = js_sys::Date::now() as u64;
                let args = serde_json::to_string_pretty(&arguments).unwrap_or_default();
                let result =
                    self.call_tool(&app.call_id, server_id, name.clone(), arguments, asks).await;
                let done = AppCall { name, args, started_ms };
                self.driver.record_activity(done.activity(app, &result));
                return result;
            }
            HostWork::ListTools => Request::ListTools { server_id, refresh: false },
            HostWork::ListResources => Request::ListResources { server_id },
            HostWork::ListResourceTemplates => Request::ListResourceTemplates { server_id },
            HostWork::ReadResource { uri } => Request::ReadResource { server_id, uri },
        };
        answer(self.port.request(request).await)
    }

    /// An app's tool call, under the person's rules: the worker decides, and when it asks,
    /// the person answers in the app's card and the call goes again with their yes.
    async fn call_tool(
        &self,
        call_id: &str,
        server_id: ServerId,
        tool: String,
        arguments: Map<String, Value>,
        asks: &AppAsks,
    ) -> Result<Value, ErrorObject> {
        let call_id = format!("{call_id}/app/{}", js_sys::Math::random().to_bits());
        let mut consent =
            AppConsent { page_content_seen: self.driver.page_content_seen(), allowed: false };
        // A worker that restarted between the question and the answer asks once more.
        for _ in 0..3 {
            let request = Request::CallTool {
                call_id: call_id.clone(),
                server_id: server_id.clone(),
                tool: tool.clone(),
                arguments: Value::Object(arguments.clone()),
                caller: Caller::App,
                consent,
            };
            let because_of_page_content = match self.port.request(request).await {
                Ok(Response::ConfirmAppCall { because_of_page_content }) => because_of_page_content,
                other => return answer(other),
            };
            let ask = AppAsk {
                tool: tool.clone(),
                arguments: arguments.clone(),
                because_of_page_content,
            };
            match asks.ask(ask).await {
                AppAnswer::Deny => return Err(ErrorObject::new(code::INTERNAL_ERROR, DENIED)),
                AppAnswer::AllowOnce => {}
                AppAnswer::AlwaysTool => {
                    let edit =
                        SettingsEdit::AllowTool { id: server_id.clone(), tool: tool.clone() };
                    // Remembering is a convenience: the call the person allowed runs either way.
                    let _ = self.port.request(Request::EditSettings { edit }).await;
                }
            }
            consent.allowed = true;
        }
        Err(ErrorObject::new(code::INTERNAL_ERROR, "the call could not be confirmed"))
    }
}

/// An app's tool call, to keep in the chat's activity once it is over.
struct AppCall {
    name: String,
    args: String,
    started_ms: u64,
}

impl AppCall {
    fn activity(self, app: &AppOrigin, result: &Result<Value, ErrorObject>) -> Activity {
        let is_error = |value: &Value| value.get("isError") == Some(&Value::Bool(true));
        let (outcome, result_bytes) = match result {
            Ok(value) if is_error(value) => (Outcome::Failed, value.to_string().len()),
            Ok(value) => (Outcome::Done, value.to_string().len()),
            Err(error) if error.message == DENIED => (Outcome::Denied, 0),
            Err(error) => (Outcome::Failed, error.message.len()),
        };
        let now_ms = js_sys::Date::now() as u64;
        Activity::Tool(ToolActivity {
            call_id: format!("{}/app/{}/{}", app.call_id, self.name, self.started_ms),
            at_ms: self.started_ms,
            server: app.server_name.clone(),
            tool: self.name,
            asker: Asker::App { tool: app.tool.clone() },
            args: self.args,
            result_bytes: Some(result_bytes),
            duration_ms: Some(now_ms.saturating_sub(self.started_ms)),
            outcome,
        })
    }
}

/// The worker's answer as the MCP result document the app is given.
fn answer(
    response: Result<Response, gemipanel_browser::BrowserError>,
) -> Result<Value, ErrorObject> {
    match response {
        Ok(Response::ToolResult { result }) => Ok(serde_json::to_value(result).unwrap_or_default()),
        Ok(Response::Resource { result }) => Ok(serde_json::to_value(result).unwrap_or_default()),
        Ok(Response::Resources { resources, .. }) => {
            let page = ListResourcesResult { resources, next_cursor: None };
            Ok(serde_json::to_value(page).unwrap_or_default())
        }
        Ok(Response::ResourceTemplates { templates, .. }) => {
            Ok(serde_json::json!({ "resourceTemplates": templates }))
        }
        Ok(Response::Tools { tools, .. }) => {
            let visible = tools.into_iter().filter(|t| t.is_visible_to(Visibility::App));
            let tools = visible.map(Lenient::Valid).collect();
            let page = ListToolsResult { tools, next_cursor: None, ttl_ms: None };
            Ok(serde_json::to_value(page).unwrap_or_default())
        }
        // The app reads English, as the model does.
        Ok(Response::Error { error } | Response::SignInNeeded { error, .. }) => {
            Err(ErrorObject::new(code::INTERNAL_ERROR, error.to_string()))
        }
        Ok(_) => Err(ErrorObject::new(code::INTERNAL_ERROR, "unexpected answer from the worker")),
        Err(err) => Err(ErrorObject::new(code::INTERNAL_ERROR, err.to_string())),
    }
}
