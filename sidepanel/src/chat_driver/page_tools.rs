//! A page's own tools (WebMCP) as a tool source: the active tab's tools, listed afresh for
//! each message, declared as `page_{host}_{tool}` beside the servers' and the browser's,
//! confirmed by the same rules (a page starts untrusted, so its calls ask), and called in the
//! tab by `browser/js/page.js` as long as the tab still shows the page that offered them.

use std::collections::HashMap;

use gemipanel_browser::chrome::word;
use gemipanel_browser::page;
use gemipanel_core::gemini::{ToolCall, ToolOutcome};
use gemipanel_core::page::access::AccessProblem;
use gemipanel_core::page::webmcp::{self, PageTools};
use gemipanel_core::settings::source::{page_origin, page_source};
use gemipanel_core::settings::Settings;
use gemipanel_core::tools::{ToolDescriptor, ToolFilter, ToolRoute};
use serde_json::Value;

use super::{now_ms, Driver, ServerFacts};
use crate::state::Action;
use crate::tool_text::result_text;

/// The page whose tools a turn declared: where to call them.
#[derive(Debug, Clone)]
pub(super) struct PageSource {
    tab_id: i32,
    origin: String,
}

impl PageSource {
    /// Its source id (`page:<origin>`).
    pub fn id(&self) -> String {
        page_source(&self.origin)
    }
}

/// What the page beside the chat offers a turn: where it is, its tools as descriptors, the
/// person's filter and what the chat knows of the source.
pub(super) struct PageOffer {
    pub source: PageSource,
    pub descriptors: Vec<ToolDescriptor>,
    pub filter: ToolFilter,
    pub facts: ServerFacts,
}

/// The active tab's tools for a turn; `None` when it offers none (or cannot be read).
pub(super) async fn page_source_of_turn(settings: &Settings) -> Option<PageOffer> {
    let answer = page::page_tools(None).await.ok()?;
    let tab_id = answer.tab.as_ref()?.id;
    let PageTools::Tools { origin, tools, .. } = PageTools::read(answer.model_context.as_ref()?)
    else {
        return None;
    };
    if tools.is_empty() {
        return None;
    }
    let id = page_source(&origin);
    let source = settings.source(&id);
    let descriptors = tools.iter().map(|t| webmcp::descriptor(&origin, t)).collect();
    let read_only: HashMap<String, Option<bool>> =
        tools.iter().map(|t| (t.name.clone(), t.read_only())).collect();
    let facts = ServerFacts {
        name: webmcp::host_of(&origin).to_owned(),
        trust: source.trust,
        allowed: source.allowed_tools,
        read_only,
        apps: HashMap::new(),
    };
    let filter = ToolFilter { include: None, exclude: source.exclude_tools };
    Some(PageOffer { source: PageSource { tab_id, origin }, descriptors, filter, facts })
}

impl Driver {
    /// Calls a page's tool in its tab (the call may run: confirmed or trusted).
    pub(super) fn run_page_call(&self, call: ToolCall, route: ToolRoute) {
        let call_id = call.call_id.clone();
        self.dispatch(Action::ToolStarted { call_id: call_id.clone(), now_ms: now_ms() });
        let source = self.0.borrow().page_source.clone();
        let this = self.clone();
        wasm_bindgen_futures::spawn_local(async move {
            let tool = route.tool_name.clone();
            let origin = page_origin(&route.server_id);
            let result = match source.filter(|s| Some(s.origin.as_str()) == origin) {
                None => webmcp::call_failed(
                    &tool,
                    "the page that offered it is no longer beside the chat.",
                ),
                Some(source) => {
                    let args = Value::Object(call.args.clone()).to_string();
                    match page::call_page_tool(source.tab_id, &source.origin, &tool, &args).await {
                        Ok(answer) => {
                            let text = match answer.result {
                                None | Some(Value::Null) => None,
                                Some(Value::String(text)) => Some(text),
                                Some(other) => Some(other.to_string()),
                            };
                            webmcp::call_result(&source.origin, &tool, text.as_deref())
                        }
                        Err(AccessProblem::Other(message)) => webmcp::call_failed(&tool, &message),
                        Err(problem) => webmcp::call_failed(&tool, &problem.text().to_string()),
                    }
                }
            };
            let (text, is_error) = result_text(&result, word);
            this.finish_tool_call(call_id, ToolOutcome::Mcp(result), text, is_error);
        });
    }
}
