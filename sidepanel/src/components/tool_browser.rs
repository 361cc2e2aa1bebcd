//! The tool browser: every configured server's tools and resources, and a tool run by hand with a form made
//! from its input schema (or its arguments as raw JSON), its result and its app shown as in the
//! chat. A person tries a server without spending Gemini tokens, or sees an app without a key.

use std::cell::RefCell;
use std::rc::Rc;

use gemipanel_browser::chrome::{message, word};
use gemipanel_core::chats::activity::{Activity, Asker};
use gemipanel_core::mcp::{Resource, Tool, Visibility};
use gemipanel_core::messages::{Caller, Request, Response};
use gemipanel_core::tools::form::{collect, fields, fits, initial, Problem, MAX_DEPTH};
use serde_json::{Map, Value};
use web_sys::HtmlTextAreaElement;
use yew::prelude::*;

use super::form_field::{form_field, Values};
use super::tool_card::ToolCardView;
use crate::app_host::{read_app, AppServices, Prefetch};
use crate::chat_driver::server_id;
use crate::state::{ToolCard, ToolStatus};
use crate::tool_text::result_text;
use crate::transcript::AppCard;

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

/// What keeps a form from being sent, in words: the missing fields by path, then the lists.
fn words(problems: &[Problem]) -> String {
    let missing: Vec<&str> = problems
        .iter()
        .filter_map(|p| match p {
            Problem::Required(path) => Some(path.as_str()),
            _ => None,
        })
        .collect();
    let lists = problems.iter().filter_map(|p| match p {
        Problem::TooFew(path, n) => Some(message("panelFormTooFew", &[path, &n.to_string()])),
        Problem::TooMany(path, n) => Some(message("panelFormTooMany", &[path, &n.to_string()])),
        Problem::Required(_) => None,
    });
    let required = (!missing.is_empty()).then(|| message("panelRequired", &[&missing.join(", ")]));
    required.into_iter().chain(lists).collect::<Vec<_>>().join(" ")
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

#[derive(Properties, PartialEq)]
struct RunnerProps {
    server: ServerEntry,
    tool: Rc<Tool>,
}

/// One tool: its form, Run, and the runs so far (newest first).
#[function_component]
fn ToolRunner(props: &RunnerProps) -> Html {
    let services = use_context::<AppServices>();
    let form = use_memo(props.tool.clone(), |tool| fields(&tool.input_schema, MAX_DEPTH));
    // The schema's defaults fill the form, as in an elicitation.
    let values: Values = {
        let form = form.clone();
        use_mut_ref(move || initial(&form))
    };
    let raw = use_state(|| false);
    // The raw JSON as typed: a redraw (a problem shown, a run) keeps it.
    let raw_text = use_mut_ref(String::new);
    let problem = use_state(|| None::<String>);
    let runs: Rc<RefCell<Vec<ToolCard>>> = use_mut_ref(Vec::new);
    let redraw = use_force_update();
    let runnable = props.tool.is_visible_to(Visibility::Model);
    // A tool with an app: its resource and the app host get ready while the person fills in
    // the form, so Run shows the app sooner.
    let prefetch = use_memo((), |_| Prefetch::default());
    {
        let (prefetch, services, server, tool) =
            (prefetch.clone(), services.clone(), props.server.clone(), props.tool.clone());
        use_effect_with((), move |_| {
            if let (Some(services), Some(uri)) = (services, tool.ui_resource_uri()) {
                gemipanel_browser::app_frame::warm_up();
                let definition = Rc::new(serde_json::to_value(&*tool).unwrap_or_default());
                prefetch.start(
                    services.port.clone(),
                    server.id.clone(),
                    uri.to_owned(),
                    definition,
                );
            }
        });
    }

    let run = {
        let (values, raw, raw_text, problem, runs, redraw) = (
            values.clone(),
            raw.clone(),
            raw_text.clone(),
            problem.clone(),
            runs.clone(),
            redraw.clone(),
        );
        let (server, tool, form) = (props.server.clone(), props.tool.clone(), form.clone());
        Callback::from(move |_: MouseEvent| {
            let Some(services) = services.clone() else { return };
            let arguments = if *raw {
                match serde_json::from_str::<Map<String, Value>>(&raw_text.borrow()) {
                    Ok(arguments) => arguments,
                    Err(e) => {
                        return problem.set(Some(message("panelToolsBadJson", &[&e.to_string()])))
                    }
                }
            } else {
                match collect(&form, &values.borrow()) {
                    (arguments, problems) if problems.is_empty() => arguments,
                    (_, problems) => return problem.set(Some(words(&problems))),
                }
            };
            problem.set(None);
            let call_id = format!("browser-{}", js_sys::Date::now() as u64);
            let mut card = ToolCard::asked(
                &call_id,
                &server.id,
                &server.name,
                &tool.name,
                serde_json::to_string_pretty(&arguments).unwrap_or_default(),
                tool.read_only(),
                true,
            );
            card.status = ToolStatus::Running;
            let definition = Rc::new(serde_json::to_value(&*tool).unwrap_or_default());
            card.app = tool.ui_resource_uri().map(|uri| AppCard {
                server_id: server.id.clone(),
                uri: uri.to_owned(),
                tool: definition.clone(),
                input: arguments.clone(),
                resource: None,
                error: None,
                result: None,
                cancelled: false,
            });
            runs.borrow_mut().insert(0, card);
            redraw.force_update();
            let update = {
                let (runs, redraw, call_id) = (runs.clone(), redraw.clone(), call_id.clone());
                move |change: &dyn Fn(&mut ToolCard)| {
                    if let Some(card) = runs.borrow_mut().iter_mut().find(|c| c.call_id == call_id)
                    {
                        change(card);
                    }
                    redraw.force_update();
                }
            };
            if let Some(app) = tool.ui_resource_uri().map(str::to_owned) {
                let (services, server_id, update, prefetch) =
                    (services.clone(), server.id.clone(), update.clone(), prefetch.clone());
                wasm_bindgen_futures::spawn_local(async move {
                    let read = match prefetch.get().await {
                        Some(Ok(resource)) => Ok(resource),
                        _ => read_app(&services.port, &server_id, &app, &definition).await,
                    };
                    update(&|card: &mut ToolCard| {
                        if let Some(app) = card.app.as_mut() {
                            match &read {
                                Ok(resource) => app.resource = Some(Rc::new(resource.clone())),
                                Err(error) => app.error = Some(error.clone()),
                            }
                        }
                    });
                });
            }
            let call_id_for_record = call_id.clone();
            let request = Request::CallTool {
                call_id,
                server_id: server_id(&server.id),
                tool: tool.name.clone(),
                arguments: Value::Object(arguments),
                caller: Caller::Model,
                consent: Default::default(),
            };
            let record = {
                let (runs, driver) = (runs.clone(), services.driver.clone());
                move |call_id: &str, started_ms: u64| {
                    let now_ms = js_sys::Date::now() as u64;
                    let runs = runs.borrow();
                    let card = runs.iter().find(|c| c.call_id == call_id);
                    if let Some(Activity::Tool(mut call)) =
                        card.and_then(|c| Activity::of_card(c, started_ms))
                    {
                        call.asker = Asker::Person;
                        call.duration_ms = Some(now_ms.saturating_sub(started_ms));
                        driver.record_activity(Activity::Tool(call));
                    }
                }
            };
            let started_ms = js_sys::Date::now() as u64;
            wasm_bindgen_futures::spawn_local(async move {
                let answer = services.port.request(request).await;
                update(&|card: &mut ToolCard| match &answer {
                    Ok(Response::ToolResult { result }) => {
                        let (text, is_error) = result_text(result, word);
                        card.status = if is_error {
                            ToolStatus::Failed { message: text.clone() }
                        } else {
                            ToolStatus::Done
                        };
                        card.result = Some(text);
                        if let Some(app) = card.app.as_mut() {
                            app.result = Some(Rc::new(result.clone()));
                        }
                    }
                    Ok(Response::Error { error } | Response::SignInNeeded { error, .. }) => {
                        card.status = ToolStatus::Failed { message: word(error) };
                    }
                    Ok(_) => {
                        card.status = ToolStatus::Failed {
                            message: message("errWorkerUnexpectedAnswer", &[]),
                        };
                    }
                    Err(err) => card.status = ToolStatus::Failed { message: err.to_string() },
                });
                // The person's own call, kept in the open chat's activity.
                record(&call_id_for_record, started_ms);
            });
        })
    };
    // Raw JSON goes back into the form only when the form can show all of it.
    let toggle_raw = {
        let (raw, raw_text, values, problem, form) =
            (raw.clone(), raw_text.clone(), values.clone(), problem.clone(), form.clone());
        Callback::from(move |_: MouseEvent| {
            if !*raw {
                let arguments = collect(&form, &values.borrow()).0;
                *raw_text.borrow_mut() =
                    serde_json::to_string_pretty(&arguments).unwrap_or_default();
            } else {
                let parsed = serde_json::from_str::<Map<String, Value>>(&raw_text.borrow())
                    .map_err(|e| message("panelToolsBadJson", &[&e.to_string()]))
                    .and_then(|arguments| match fits(&form, &arguments) {
                        Ok(()) => Ok(arguments),
                        Err(path) => Err(message("panelToolsNoFit", &[&path])),
                    });
                match parsed {
                    Ok(arguments) => *values.borrow_mut() = arguments,
                    Err(error) => return problem.set(Some(error)),
                }
            }
            problem.set(None);
            raw.set(!*raw);
        })
    };
    let redraw_form = Callback::from(move |()| redraw.force_update());
    let edit_raw = {
        let raw_text = raw_text.clone();
        Callback::from(move |e: InputEvent| {
            *raw_text.borrow_mut() = e.target_unchecked_into::<HtmlTextAreaElement>().value();
        })
    };
    html! {
        <div class="tool-runner" data-testid="tool-runner">
            <h2><span class="tool-name">{ &props.tool.name }</span>
                <span class="server">{ &props.server.name }</span></h2>
            if let Some(d) = &props.tool.description { <p class="hint">{ d }</p> }
            if *raw {
                <label class="field">
                    <span>{ message("panelToolsArguments", &[]) }</span>
                    <textarea class="json" rows="6" spellcheck="false" data-testid="tool-raw"
                        value={raw_text.borrow().clone()} oninput={edit_raw} />
                </label>
            } else {
                { for form.iter().map(|f| form_field(f, &[], &values, &redraw_form)) }
            }
            if let Some(problem) = &*problem { <p class="hint error" role="alert">{ problem }</p> }
            <div class="confirm">
                if runnable {
                    <button type="button" class="primary" onclick={run} data-testid="tool-run">
                        { message("panelToolsRun", &[]) }</button>
                } else {
                    <p class="hint">{ message("panelToolsAppOnlyHint", &[]) }</p>
                }
                <button type="button" onclick={toggle_raw} data-testid="tool-raw-toggle">
                    { message(if *raw { "panelToolsForm" } else { "panelToolsRaw" }, &[]) }</button>
            </div>
            <div class="tool-runs">
                { for runs.borrow().iter().map(|card| html! {
                    <ToolCardView key={card.call_id.clone()} card={card.clone()} on_decide={Callback::noop()} />
                }) }
            </div>
        </div>
    }
}
