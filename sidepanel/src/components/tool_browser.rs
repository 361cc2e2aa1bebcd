//! The tool browser: every configured server's tools and resources; a tool picked opens in
//! `tool_runner`, run by hand with a form made from its input schema (or its arguments as raw
//! JSON), its result and its app shown as in the chat. A person tries a server without
//! spending Gemini tokens, or sees an app without a key.

use std::rc::Rc;

use gemipanel_browser::chrome::{message, word};
use gemipanel_core::mcp::{Resource, Tool, Visibility};
use gemipanel_core::messages::{Request, Response};
use yew::prelude::*;

use super::tool_runner::ToolRunner;
use crate::app_host::AppServices;
use crate::chat_driver::server_id;

/// A configured server, as the browser lists it.
#[derive(Clone, PartialEq)]
pub struct ServerEntry {
    pub id: String,
    pub name: String,
}

#[derive(Properties, PartialEq)]
pub struct Props {
    pub servers: Vec<ServerEntry>,
}

/// The tools of one server, once asked for, and its resources (or why they could not be listed).
#[derive(Clone, PartialEq)]
enum Listing {
    Loading,
    Tools(Rc<Vec<Tool>>, Rc<Result<Vec<Resource>, String>>),
    Failed(String),
}

/// A page's reading of an answer it did not expect, or of the worker's error.
fn failure(answer: Result<Response, impl ToString>) -> String {
    match answer {
        Ok(Response::Error { error } | Response::SignInNeeded { error, .. }) => word(&error),
        Ok(_) => message("errWorkerUnexpectedAnswer", &[]),
        Err(err) => err.to_string(),
    }
}

#[function_component]
pub fn ToolBrowser(props: &Props) -> Html {
    let services = use_context::<AppServices>();
    let listings = use_state(Vec::<(String, Listing)>::new);
    let selected = use_state(|| None::<(ServerEntry, Tool)>);
    let runner_ref = use_node_ref();

    let load = {
        let (listings, services) = (listings.clone(), services.clone());
        Callback::from(move |server: ServerEntry| {
            let Some(services) = services.clone() else { return };
            if listings.iter().any(|(id, l)| *id == server.id && *l != Listing::Loading) {
                return;
            }
            let listings = listings.clone();
            let mut next = (*listings).clone();
            next.retain(|(id, _)| *id != server.id);
            next.push((server.id.clone(), Listing::Loading));
            listings.set(next.clone());
            wasm_bindgen_futures::spawn_local(async move {
                let request =
                    Request::ListTools { server_id: server_id(&server.id), refresh: false };
                let listing = match services.port.request(request).await {
                    Ok(Response::Tools { tools, .. }) => {
                        let request = Request::ListResources { server_id: server_id(&server.id) };
                        let resources = match services.port.request(request).await {
                            Ok(Response::Resources { resources, .. }) => Ok(resources),
                            other => Err(failure(other)),
                        };
                        Listing::Tools(Rc::new(tools), Rc::new(resources))
                    }
                    other => Listing::Failed(failure(other)),
                };
                next.retain(|(id, _)| *id != server.id);
                next.push((server.id.clone(), listing));
                listings.set(next);
            });
        })
    };

    if let Some((server, tool)) = &*selected {
        let back = {
            let (selected, runner) = (selected.clone(), runner_ref.clone());
            Callback::from(move |_: MouseEvent| {
                // The runner's app goes with it: asked to clean up first.
                if let Some(runner) = runner.cast::<web_sys::Element>() {
                    gemipanel_browser::app_frame::depart_within(&runner);
                }
                selected.set(None)
            })
        };
        return html! {
            <section class="tool-browser" data-testid="tool-browser" ref={runner_ref}>
                <button type="button" class="link back" onclick={back}>{ message("panelToolsBack", &[]) }</button>
                <ToolRunner server={server.clone()} tool={Rc::new(tool.clone())} />
            </section>
        };
    }
    let servers = props.servers.iter().map(|server| {
        let listing = listings.iter().find(|(id, _)| *id == server.id).map(|(_, l)| l.clone());
        let ontoggle = {
            let (load, server) = (load.clone(), server.clone());
            Callback::from(move |e: Event| {
                let open = e.target_unchecked_into::<web_sys::HtmlDetailsElement>().open();
                if open {
                    load.emit(server.clone());
                }
            })
        };
        // Open again when the person comes back from a tool.
        let open = listing.is_some();
        let body = match listing {
            None | Some(Listing::Loading) => html! {
                <p class="hint"><span class="spinner" aria-hidden="true"></span>{ message("panelToolsLoading", &[]) }</p>
            },
            Some(Listing::Failed(error)) => html! { <p class="hint error" role="alert">{ error }</p> },
            Some(Listing::Tools(tools, resources)) => html! { <>
                if tools.is_empty() { <p class="hint">{ message("panelToolsNone", &[]) }</p> }
                <ul class="tool-list">
                    { for tools.iter().map(|tool| {
                        let pick = {
                            let (selected, server, tool) = (selected.clone(), server.clone(), tool.clone());
                            Callback::from(move |_: MouseEvent| selected.set(Some((server.clone(), tool.clone()))))
                        };
                        let app = tool.ui_resource_uri().is_some();
                        let app_only = !tool.is_visible_to(Visibility::Model);
                        html! {
                            <li>
                                <button type="button" class="tool-entry" onclick={pick}
                                    data-testid="tool-entry" data-tool={tool.name.clone()}>
                                    <span class="tool-name">{ &tool.name }</span>
                                    if app { <span class="badge-app">{ message("panelToolsApp", &[]) }</span> }
                                    if app_only { <span class="badge-app muted">{ message("panelToolsAppOnly", &[]) }</span> }
                                    if let Some(d) = &tool.description { <span class="tool-description">{ d }</span> }
                                </button>
                            </li>
                        }
                    }) }
                </ul>
                { resource_list(server, &resources) }
            </> },
        };
        html! {
            <details class="tool-server" key={server.id.clone()} data-server={server.name.clone()} {open} {ontoggle}>
                <summary>{ &server.name }</summary>
                { body }
            </details>
        }
    });
    html! {
        <section class="tool-browser" data-testid="tool-browser">
            <h2>{ message("panelToolsTitle", &[]) }</h2>
            <p class="hint">{ message("panelToolsHint", &[]) }</p>
            if props.servers.is_empty() {
                <p class="hint">{ message("panelNoServers", &[]) }</p>
            }
            { for servers }
        </section>
    }
}

/// A server's resources, each readable in place; nothing when it offers none.
fn resource_list(server: &ServerEntry, resources: &Result<Vec<Resource>, String>) -> Html {
    match resources {
        Ok(list) if list.is_empty() => Html::default(),
        Ok(list) => html! {
            <div class="resource-list" data-testid="resource-list">
                <h3>{ message("panelResourcesTitle", &[&list.len().to_string()]) }</h3>
                <ul>
                    { for list.iter().map(|resource| html! {
                        <ResourceEntry key={resource.uri.clone()} server={server.clone()} resource={Rc::new(resource.clone())} />
                    }) }
                </ul>
            </div>
        },
        Err(error) => html! {
            <p class="hint error" role="alert">{ message("panelResourcesFailed", &[error]) }</p>
        },
    }
}

#[derive(Properties, PartialEq)]
struct ResourceProps {
    server: ServerEntry,
    resource: Rc<Resource>,
}

/// The most of a resource's text shown in place; the rest is cut with a note.
const SHOWN_CHARS: usize = 20_000;

/// One resource: its name and URI; opened, what `resources/read` returned.
#[function_component]
fn ResourceEntry(props: &ResourceProps) -> Html {
    let services = use_context::<AppServices>();
    let read = use_state(|| None::<Result<String, String>>);
    let ontoggle = {
        let (read, server, uri) = (read.clone(), props.server.clone(), props.resource.uri.clone());
        Callback::from(move |e: Event| {
            let open = e.target_unchecked_into::<web_sys::HtmlDetailsElement>().open();
            let Some(services) = services.clone().filter(|_| open && read.is_none()) else {
                return;
            };
            let (read, request) = (
                read.clone(),
                Request::ReadResource { server_id: server_id(&server.id), uri: uri.clone() },
            );
            wasm_bindgen_futures::spawn_local(async move {
                read.set(Some(match services.port.request(request).await {
                    Ok(Response::Resource { result }) => Ok(contents_text(&result.contents)),
                    other => Err(failure(other)),
                }));
            });
        })
    };
    let resource = &props.resource;
    let name = resource.title.as_deref().unwrap_or(&resource.name);
    html! {
        <li>
            <details class="resource" {ontoggle} data-testid="resource-entry" data-uri={resource.uri.clone()}>
                <summary>
                    <span class="tool-name">{ name }</span>
                    <span class="hint uri">{ &resource.uri }</span>
                </summary>
                { match &*read {
                    None => html! { <p class="hint"><span class="spinner" aria-hidden="true"></span>{ message("panelToolsLoading", &[]) }</p> },
                    Some(Ok(text)) => html! { <pre class="resource-text" data-testid="resource-text">{ text }</pre> },
                    Some(Err(error)) => html! { <p class="hint error" role="alert">{ error }</p> },
                } }
            </details>
        </li>
    }
}

/// Each content's text (cut at [`SHOWN_CHARS`] with a note), or a line saying it is binary.
fn contents_text(contents: &[gemipanel_core::mcp::ResourceContents]) -> String {
    let parts = contents.iter().map(|content| match (&content.text, &content.blob) {
        (Some(text), _) => match text.char_indices().nth(SHOWN_CHARS) {
            Some((cut, _)) => {
                let rest = text.len() - cut;
                format!("{}\n{}", &text[..cut], message("panelResourceCut", &[&rest.to_string()]))
            }
            None => text.clone(),
        },
        (None, Some(blob)) => {
            let mime = content.mime_type.as_deref().unwrap_or("application/octet-stream");
            message("panelResourceBinary", &[mime, &(blob.len() / 4 * 3).to_string()])
        }
        (None, None) => message("panelResourceEmpty", &[]),
    });
    parts.collect::<Vec<_>>().join("\n\n")
}
