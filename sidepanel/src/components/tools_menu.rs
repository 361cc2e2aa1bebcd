use std::rc::Rc;

use gemipanel_browser::chrome::{counted_message, message, number};
use gemipanel_core::gemini::budget::ToolsSent;
use gemipanel_core::page::webmcp::PageTools;
use gemipanel_core::settings::source::{BROWSER, PAGES};
use web_sys::HtmlInputElement;
use yew::prelude::*;

/// One server in the menu.
#[derive(Debug, Clone, PartialEq)]
pub struct ServerChoice {
    pub id: String,
    pub name: String,
    pub checked: bool,
}

#[derive(Properties, PartialEq)]
pub struct Props {
    pub servers: Vec<ServerChoice>,
    pub google_search: bool,
    /// Why MCP tools are off, when they are.
    pub tools_off: Option<String>,
    /// What the last request of this chat declared.
    pub sent: Option<ToolsSent>,
    pub on_toggle: Callback<String>,
    pub on_search: Callback<bool>,
    /// More per-chat choices on the same row (the thinking picker).
    #[prop_or_default]
    pub children: Html,
    /// The browser's tools and whether each is on (the person's setting).
    #[prop_or_default]
    pub browser_tools: Vec<(String, bool)>,
    #[prop_or_default]
    pub on_browser_tool: Callback<(String, bool)>,
    /// What the page beside the chat offers (WebMCP), as last listed.
    #[prop_or_default]
    pub page_tools: Option<Rc<PageTools>>,
    /// The menu opened (the page's tools are listed again).
    #[prop_or_default]
    pub on_open: Callback<()>,
}

/// Per-chat choices: which servers' tools to offer, and Google Search grounding.
#[function_component]
pub fn ToolsMenu(props: &Props) -> Html {
    let on = props.servers.iter().filter(|s| s.checked).count();
    let servers = props.servers.iter().map(|server| {
        let id = server.id.clone();
        let onchange = props.on_toggle.reform(move |_: Event| id.clone());
        let browser = server.id == BROWSER;
        let page = (server.id == PAGES).then(|| page_tools(props.page_tools.as_deref()));
        let tools = browser.then(|| {
            let disabled = props.tools_off.is_some() || !server.checked;
            let tools = props.browser_tools.iter().map(|(name, on)| {
                let name_for = name.clone();
                let onchange = props.on_browser_tool.reform(move |e: Event| {
                    (name_for.clone(), e.target_unchecked_into::<HtmlInputElement>().checked())
                });
                html! {
                    <label class="check tool" key={name.clone()} data-tool={name.clone()}>
                        <input type="checkbox" checked={*on} {onchange} {disabled} />
                        <span class="tool-name">{ name }</span>
                    </label>
                }
            });
            html! { <div class="source-tools" data-testid="browser-tools">{ for tools }</div> }
        });
        html! {
            <div class="source" key={server.id.clone()} data-source={server.id.clone()}>
                <label class="check">
                    <input type="checkbox" checked={server.checked} {onchange}
                        disabled={props.tools_off.is_some()} />
                    <span>{ &server.name }</span>
                </label>
                { for tools }
                { for page }
            </div>
        }
    });
    let on_search =
        props.on_search.reform(|e: Event| e.target_unchecked_into::<HtmlInputElement>().checked());
    html! {
        <div class="tools-row">
            <details class="tools-menu" data-testid="tools-menu" ontoggle={{
                let on_open = props.on_open.clone();
                Callback::from(move |e: Event| {
                    if e.target_unchecked_into::<web_sys::HtmlDetailsElement>().open() {
                        on_open.emit(());
                    }
                })
            }}>
                <summary>{ message("panelTools", &[&on.to_string()]) }</summary>
                <div class="menu">
                    { for servers }
                    if props.servers.len() <= 2 {
                        <p class="hint">{ message("panelNoServers", &[]) }</p>
                    }
                </div>
            </details>
            <label class="check search-toggle">
                <input type="checkbox" checked={props.google_search} onchange={on_search}
                    data-testid="google-search" />
                <span>{ message("panelGoogleSearch", &[]) }</span>
            </label>
            { props.children.clone() }
            if let Some(sent) = props.sent.filter(|s| s.enabled > 0 && props.tools_off.is_none()) {
                <span class="tools-sent hint" data-testid="tools-sent"
                    data-enabled={sent.enabled.to_string()} data-sent={sent.sent.to_string()}
                    title={sent.search.then(|| message("panelToolsSearchHint", &[]))}>
                    { sent_line(sent) }</span>
            }
            if let Some(reason) = &props.tools_off {
                <p class="tools-off hint" data-testid="tools-off">{ reason }</p>
            }
        </div>
    }
}

/// What the page beside the chat offers: its tools, or why there are none.
fn page_tools(listed: Option<&PageTools>) -> Html {
    let hint = |key: &str| html! { <p class="hint source-note" data-testid="page-tools-note">{ message(key, &[]) }</p> };
    match listed {
        None => hint("panelPageToolsUnknown"),
        Some(PageTools::Unsupported) => hint("panelPageToolsUnsupported"),
        Some(PageTools::NotSecure) => hint("panelPageToolsNotSecure"),
        Some(PageTools::Tools { tools, .. }) if tools.is_empty() => hint("panelPageToolsNone"),
        Some(PageTools::Tools { origin, tools, .. }) => html! {
            <div class="source-tools" data-testid="page-tools" data-origin={origin.clone()}>
                { for tools.iter().map(|t| html! {
                    <span class="tool-name" key={t.name.clone()} data-tool={t.name.clone()}
                        title={t.description.clone().unwrap_or_default()}>{ &t.name }</span>
                }) }
            </div>
        },
    }
}

/// "24 of 1,000 tools sent, more by search" or "12 tools sent".
fn sent_line(sent: ToolsSent) -> String {
    let (count, enabled) = (number(sent.sent as f64), number(sent.enabled as f64));
    match (sent.sent == sent.enabled, sent.search) {
        (true, _) => counted_message("panelToolsSentAll", sent.sent, &[&count]),
        (false, false) => counted_message("panelToolsSentSome", sent.enabled, &[&count, &enabled]),
        (false, true) => counted_message("panelToolsSentSearch", sent.enabled, &[&count, &enabled]),
    }
}
