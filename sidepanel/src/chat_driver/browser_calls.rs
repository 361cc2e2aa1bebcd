//! The browser as a tool source: its tools are declared beside the servers' (same naming,
//! budget and confirmation), and a call is carried out here with `chrome.scripting` and
//! `chrome.tabs` instead of going to the worker. A page GemiPanel may not read yet makes the
//! card ask for the site (or for `tabs`) in the person's click, then the call runs again.

use std::collections::HashMap;

use gemipanel_browser::chrome::{self, word};
use gemipanel_browser::page;
use gemipanel_core::gemini::{ToolCall, ToolOutcome};
use gemipanel_core::mcp::CallToolResult;
use gemipanel_core::page::access::AccessProblem;
use gemipanel_core::page::browser_tools::{self as tools, BrowserCall, BrowserTool};
use gemipanel_core::page::find::{find, MAX_MATCHES};
use gemipanel_core::settings::source::BROWSER;
use gemipanel_core::settings::Settings;
use gemipanel_core::tools::{ToolDescriptor, ToolFilter, ToolRoute};
use indexmap::IndexMap;
use serde_json::{Map, Value};

use super::{now_ms, Driver, ServerFacts};
use crate::state::Action;
use crate::tool_text::result_text;

/// A call waiting for the person to let the browser read a page or see the tabs.
pub(super) struct Waiting {
    call: ToolCall,
    route: ToolRoute,
    origins: Vec<String>,
    tabs: bool,
    message: String,
}

/// The browser's tools as a source of the turn: descriptors, the person's filter and facts.
pub(super) fn browser_source(
    settings: &Settings,
) -> (Vec<ToolDescriptor>, ToolFilter, ServerFacts) {
    let source = settings.source(BROWSER);
    let descriptors = BrowserTool::ALL.iter().map(|t| t.descriptor()).collect();
    let read_only: HashMap<String, Option<bool>> =
        BrowserTool::ALL.iter().map(|t| (t.name().to_owned(), Some(t.read_only()))).collect();
    let facts = ServerFacts {
        name: chrome::message("panelBrowserSource", &[]),
        trust: source.trust,
        allowed: source.allowed_tools.clone(),
        read_only,
        apps: HashMap::new(),
    };
    (descriptors, ToolFilter { include: None, exclude: source.exclude_tools }, facts)
}

/// Why a browser call did not give a result.
enum Stop {
    /// The person can let GemiPanel in with a click.
    Access { problem: AccessProblem, origins: Vec<String>, tabs: bool },
    /// Nothing to do about it: the model and the person are told why.
    Refused(AccessProblem),
}

impl Driver {
    /// Runs a call of one of the browser's tools (it may run: confirmed or trusted).
    pub(super) fn run_browser_call(&self, call: ToolCall, route: ToolRoute) {
        let call_id = call.call_id.clone();
        self.dispatch(Action::ToolStarted { call_id: call_id.clone(), now_ms: now_ms() });
        let this = self.clone();
        wasm_bindgen_futures::spawn_local(async move {
            match carry_out(&route.tool_name, &call.args).await {
                Ok(result) => {
                    let (text, is_error) = result_text(&result, word);
                    this.finish_tool_call(call_id, ToolOutcome::Mcp(result), text, is_error);
                }
                Err(Stop::Access { problem, origins, tabs }) => {
                    let message = word(&problem.text());
                    let waiting = Waiting {
                        call,
                        route,
                        origins: origins.clone(),
                        tabs,
                        message: problem.text().to_string(),
                    };
                    this.0.borrow_mut().needs_access.insert(call_id.clone(), waiting);
                    this.dispatch(Action::ToolNeedsAccess { call_id, message, origins, tabs });
                }
                Err(Stop::Refused(problem)) => {
                    // The model reads English; the person, their language.
                    let result = tools::error_result(problem.text().to_string());
                    this.finish_tool_call(
                        call_id,
                        ToolOutcome::Mcp(result),
                        word(&problem.text()),
                        true,
                    );
                }
            }
        });
    }

    /// The person answered a card that asks for access: on Allow, the permission is asked for
    /// inside this click, and the call runs again once granted.
    pub(super) fn access_decided(&self, call_id: &str, allow: bool) {
        let Some(waiting) = self.0.borrow_mut().needs_access.shift_remove(call_id) else { return };
        if !allow {
            return self.access_refused(waiting);
        }
        let origins =
            (!waiting.origins.is_empty()).then(|| chrome::request_origins(&waiting.origins));
        let tabs = waiting.tabs.then(page::request_tabs_permission);
        let this = self.clone();
        wasm_bindgen_futures::spawn_local(async move {
            let sites = match origins {
                Some(asked) => asked.await.unwrap_or(false),
                None => true,
            };
            let tabs = match tabs {
                Some(asked) => asked.await,
                None => true,
            };
            if tabs && waiting.tabs {
                this.dispatch(Action::TabsPermission(true));
            }
            if sites && tabs {
                this.run_browser_call(waiting.call, waiting.route);
            } else {
                this.access_refused(waiting);
            }
        });
    }

    fn access_refused(&self, waiting: Waiting) {
        let call_id = waiting.call.call_id.clone();
        let message = format!("The person did not give GemiPanel access. {}", waiting.message);
        let shown = chrome::message("panelAccessRefused", &[]);
        let result = tools::error_result(message);
        self.finish_tool_call(call_id, ToolOutcome::Mcp(result), shown, true);
    }
}

/// Carries out a browser tool's call.
async fn carry_out(tool: &str, args: &Map<String, Value>) -> Result<CallToolResult, Stop> {
    let call = match BrowserCall::parse(tool, args) {
        Ok(call) => call,
        Err(why) => return Ok(tools::error_result(why)),
    };
    Ok(match call {
        BrowserCall::ReadPage { tab_id, page } => {
            let answer = page::read_page(tab_id).await.map_err(stop)?;
            tools::read_page_result(&answer.read.unwrap_or_default(), page)
        }
        BrowserCall::GetSelection { tab_id } => {
            let answer =
                page::read_selection(tab_id, tools::MAX_SELECTION_CHARS).await.map_err(stop)?;
            let (title, url) = title_and_url(&answer.title, &answer.tab);
            tools::selection_result(&title, &url, answer.text.as_deref().unwrap_or_default())
        }
        BrowserCall::FindInPage { tab_id, query } => {
            let answer = page::page_text(tab_id).await.map_err(stop)?;
            let (title, url) = title_and_url(&answer.title, &answer.tab);
            let found = find(answer.text.as_deref().unwrap_or_default(), &query, MAX_MATCHES);
            tools::find_result(&title, &url, &query, &found)
        }
        BrowserCall::Screenshot => {
            let shot = page::capture().await.map_err(stop)?;
            let mut notes = Vec::new();
            if (shot.width, shot.height) != (shot.captured_width, shot.captured_height) {
                notes.push(format!(
                    "It was scaled from {}×{} to {}×{} pixels.",
                    shot.captured_width, shot.captured_height, shot.width, shot.height
                ));
            }
            let mime = shot.mime.as_deref().unwrap_or("image/jpeg");
            tools::screenshot_result(mime, shot.data.as_deref().unwrap_or_default(), &notes)
        }
        BrowserCall::ListTabs => {
            let tabs = page::list_tabs().await.map_err(stop)?;
            if tabs.iter().any(|t| !t.is_visible()) && !page::has_tabs_permission().await {
                return Err(Stop::Access {
                    problem: AccessProblem::NeedsSite { host: None, pattern: None },
                    origins: Vec::new(),
                    tabs: true,
                });
            }
            tools::tabs_result(&tabs.iter().map(|t| t.info()).collect::<Vec<_>>())
        }
        BrowserCall::OpenTab { url, active } => {
            let tab = page::open_tab(&url, active).await.map_err(stop)?;
            tools::text_result(format!("Opened {url} in a new tab (tab_id {}).", tab.id))
        }
        BrowserCall::SwitchTab { tab_id } => {
            page::switch_tab(tab_id).await.map_err(stop)?;
            tools::text_result(format!("Tab {tab_id} is now the active tab."))
        }
    })
}

/// A page's title and URL for a quote: what the page said, else what the tab shows.
fn title_and_url(
    title: &Option<String>,
    tab: &Option<gemipanel_core::page::tab::Tab>,
) -> (String, String) {
    let tab_title = tab.as_ref().and_then(|t| t.title.clone());
    let url = tab.as_ref().and_then(|t| t.url.clone()).unwrap_or_default();
    (title.clone().or(tab_title).unwrap_or_default(), url)
}

/// What a refusal means for the call: a site to ask for, `tabs` to ask for, or the end.
fn stop(problem: AccessProblem) -> Stop {
    match &problem {
        AccessProblem::NeedsSite { pattern: Some(pattern), .. } => {
            let origins = vec![pattern.clone()];
            Stop::Access { problem, origins, tabs: false }
        }
        // The tab's address is hidden: with `tabs`, the next try knows which site to ask for.
        AccessProblem::NeedsSite { pattern: None, .. } => {
            Stop::Access { problem, origins: Vec::new(), tabs: true }
        }
        _ => Stop::Refused(problem),
    }
}

/// The sources besides servers, keyed as the driver keeps facts: the browser's filter.
pub(super) fn add_browser_source(
    settings: &Settings,
    descriptors: &mut Vec<ToolDescriptor>,
    filters: &mut IndexMap<String, ToolFilter>,
    facts: &mut HashMap<String, ServerFacts>,
) {
    let (tools, filter, browser) = browser_source(settings);
    descriptors.extend(tools);
    filters.insert(BROWSER.to_owned(), filter);
    facts.insert(BROWSER.to_owned(), browser);
}
