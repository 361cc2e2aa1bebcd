//! The MCP requests of the pages: servers with status, tools, tool calls, resources and
//! connection tests.

use std::rc::Rc;
use std::time::Duration;

use futures_channel::oneshot;
use gemipanel_browser::chrome::Port;
use gemipanel_browser::timers;
use gemipanel_core::apps::resource::app_read;
use gemipanel_core::mcp::Tool;
use gemipanel_core::mcp::{Client, CompletionRef, ReadResourceResult};
use gemipanel_core::messages::{
    AppConsent, Caller, ConnectionOutcome, Response, ServerStatus, ServerView, SignInOutcome,
    SignedInView,
};
use gemipanel_core::native::link::Problem;
use gemipanel_core::oauth::authorizer::Failure;
use gemipanel_core::settings::{
    LocalCommand, Server, ServerDraft, ServerId, Settings, DEFAULT_TIMEOUT_MS,
};
use gemipanel_core::text::Text;
use gemipanel_core::tools::app_calls::{self, AppCallVerdict, AskedCall, ServerRules};
use gemipanel_core::tools::ToolFilter;
use gemipanel_core::url_policy::{self, Policy};
use serde_json::Value;

use crate::calls::{self, PageHandler};
use crate::transport::ServerTransport;
use crate::{auth, registry};
use gemipanel_core::sync::within;

/// How long a listing waits for servers still connecting; later changes arrive as events.
const LIST_WAIT: Duration = Duration::from_secs(3);

/// Every server with its status. Servers not contacted yet (or that failed) are connected in
/// parallel first, for at most [`LIST_WAIT`]. A list past its `ttlMs` is not fetched again
/// here: pages list servers at every settings change, and a status listing does not need it.
pub async fn list(settings: Rc<Settings>) -> Response {
    registry::retain(&settings.servers);
    // Locked secrets: no server is contacted; each says why.
    if crate::vault::is_locked().await {
        let locked = ServerStatus::Error { error: Text::new("errVaultLocked") };
        let mut servers = Vec::with_capacity(settings.servers.len());
        for server in &settings.servers {
            servers.push(ServerView { status: locked.clone(), ..view(server).await });
        }
        return Response::Servers { servers };
    }
    let mut done = Vec::new();
    for server in &settings.servers {
        let stale =
            matches!(registry::status(&server.id), ServerStatus::Idle | ServerStatus::Error { .. })
                || registry::live_tools(&server.id).is_none();
        let waits = matches!(registry::status(&server.id), ServerStatus::NeedsSignIn)
            || !server.command_confirmed();
        // A command line to allow is shown as the bridge will run it, when it can say.
        if server.local.is_some() && !server.command_confirmed() {
            let (sender, receiver) = oneshot::channel::<()>();
            let server = server.clone();
            wasm_bindgen_futures::spawn_local(async move {
                crate::local::resolve(&server).await;
                let _ = sender.send(());
            });
            done.push(receiver);
        }
        if stale && !waits {
            let (sender, receiver) = oneshot::channel::<()>();
            let server = server.clone();
            wasm_bindgen_futures::spawn_local(async move {
                let _ = registry::fetch_tools(&server, false).await;
                let _ = sender.send(());
            });
            done.push(receiver);
        }
    }
    let all_done = async {
        for receiver in done {
            let _ = receiver.await;
        }
    };
    let _ = within(all_done, timers::sleep(LIST_WAIT)).await;
    let mut servers = Vec::with_capacity(settings.servers.len());
    for server in &settings.servers {
        servers.push(view(server).await);
    }
    Response::Servers { servers }
}

async fn view(server: &Server) -> ServerView {
    let filter =
        ToolFilter { include: server.include_tools.clone(), exclude: server.exclude_tools.clone() };
    let tools = match registry::live_tools(&server.id) {
        Some(listed) => Some(listed.tools.clone()),
        None => registry::cached_tools(server).await,
    };
    let signed_in = registry::signed_in_with(server).await;
    ServerView {
        id: server.id.clone(),
        name: server.name.clone(),
        url: server.url.clone(),
        command_line: server.local.as_ref().map(|l| l.display()),
        status: registry::status_of(server),
        tool_count: tools.map(|t| t.iter().filter(|t| filter.allows(&t.name)).count() as u32),
        signed_in: signed_in.as_ref().map(SignedInView::from),
    }
}

/// Signs in to a saved server (the person clicked Sign in).
pub async fn sign_in(settings: Rc<Settings>, server_id: ServerId) -> Response {
    match find(&settings, &server_id) {
        Ok(server) => {
            let _turn = auth::sign_in_turn().await;
            let authorizer = registry::authorizer(server).await;
            let outcome = auth::sign_in(server, &authorizer).await;
            // Then the tools again, with the new token.
            if matches!(outcome, SignInOutcome::SignedIn { .. }) {
                registry::signed_in(server).await;
            }
            Response::SignIn { outcome }
        }
        Err(response) => *response,
    }
}

/// A local server's stderr, as the bridge kept it.
pub async fn log(settings: Rc<Settings>, server_id: ServerId) -> Response {
    let server = match find(&settings, &server_id) {
        Ok(server) => server,
        Err(response) => return *response,
    };
    if server.local.is_none() {
        return Response::Error { error: Text::new("errNotLocal").arg(&server.name) };
    }
    match crate::local::bridge().log(server_id.as_str()).await {
        Ok((text, truncated)) => Response::ServerLog { server_id, text, truncated },
        Err(problem) => Response::Error { error: problem.text() },
    }
}

pub async fn sign_out(settings: Rc<Settings>, server_id: ServerId) -> Response {
    match find(&settings, &server_id) {
        Ok(server) => {
            let authorizer = registry::authorizer(server).await;
            auth::sign_out(server, &authorizer).await;
            // The server waits for the next sign-in.
            registry::signed_out(server);
            Response::Ok
        }
        Err(response) => *response,
    }
}

/// The server, borrowed.
fn find<'a>(settings: &'a Settings, id: &ServerId) -> Result<&'a Server, Box<Response>> {
    settings
        .server(id)
        .ok_or_else(|| Box::new(Response::Error { error: Text::new("errNoServerWithId").arg(id) }))
}

/// All tools of a server (the filters are for the model, not for this list).
pub async fn tools(settings: Rc<Settings>, server_id: ServerId, refresh: bool) -> Response {
    let server = match find(&settings, &server_id) {
        Ok(server) => server,
        Err(response) => return *response,
    };
    // A live list is reused while fresh (see `registry::fetch_tools`); before the first fetch
    // the stored copy answers at once.
    let live = registry::live_tools(&server.id).is_some();
    if !refresh && !live {
        if let Some(tools) = registry::cached_tools(server).await {
            return Response::Tools { server_id, tools, invalid: Vec::new(), fetched: false };
        }
    }
    let known = registry::fresh_tools(&server.id).filter(|_| !refresh && live);
    let fetched = known.is_none();
    let listed = match known {
        Some(listed) => Ok(listed),
        None => registry::fetch_tools(server, refresh || !live).await,
    };
    match listed {
        Ok(listed) => Response::Tools {
            server_id,
            tools: listed.tools.clone(),
            invalid: listed.invalid.clone(),
            fetched,
        },
        Err(registry::Unlisted::NeedsSignIn(error)) => Response::SignInNeeded { server_id, error },
        Err(registry::Unlisted::Failed(error)) => Response::Error { error },
    }
}

/// The resources of a server; an empty list when the server offers none.
pub async fn resources(settings: Rc<Settings>, server_id: ServerId) -> Response {
    let server = match find(&settings, &server_id) {
        Ok(server) => server,
        Err(response) => return *response,
    };
    let client = registry::client(server).await;
    let result = registry::with_sign_in(server, || client.list_resources()).await;
    let offers_none = client.server().is_some_and(|s| !s.has_capability("resources"));
    match result {
        Ok(resources) => Response::Resources { server_id, resources },
        Err(_) if offers_none => Response::Resources { server_id, resources: Vec::new() },
        Err(failure) => {
            let explained = registry::settle(server, &client, Some(&failure)).await;
            answer(server, Err(failure), explained)
        }
    }
}

/// One page of a server's resources for the composer's `@` menu; an empty page when it offers
/// none.
pub async fn resource_page(
    settings: Rc<Settings>,
    server_id: ServerId,
    cursor: Option<String>,
) -> Response {
    let server = match find(&settings, &server_id) {
        Ok(server) => server,
        Err(response) => return *response,
    };
    let client = registry::client(server).await;
    let result =
        registry::with_sign_in(server, || client.list_resources_page(cursor.as_deref())).await;
    let offers_none = client.server().is_some_and(|s| !s.has_capability("resources"));
    match result {
        Ok(page) => Response::ResourcePage { server_id, page },
        Err(_) if offers_none => Response::ResourcePage { server_id, page: Default::default() },
        Err(failure) => {
            let explained = registry::settle(server, &client, Some(&failure)).await;
            answer(server, Err(failure), explained)
        }
    }
}

/// A server's resource templates (the `@` menu, an app's `resources/templates/list`); none when
/// it offers none.
pub async fn resource_templates(settings: Rc<Settings>, server_id: ServerId) -> Response {
    let server = match find(&settings, &server_id) {
        Ok(server) => server,
        Err(response) => return *response,
    };
    let client = registry::client(server).await;
    let result = registry::with_sign_in(server, || client.list_resource_templates()).await;
    let offers_none = client.server().is_some_and(|s| !s.has_capability("resources"));
    match result {
        Ok(list) => Response::ResourceTemplates { server_id, templates: list.templates },
        Err(_) if offers_none => Response::ResourceTemplates { server_id, templates: Vec::new() },
        Err(failure) => {
            let explained = registry::settle(server, &client, Some(&failure)).await;
            answer(server, Err(failure), explained)
        }
    }
}

/// Prompts of one server for the composer's `/` menu; none when it offers none.
pub async fn prompts(settings: Rc<Settings>, server_id: ServerId) -> Response {
    let server = match find(&settings, &server_id) {
        Ok(server) => server,
        Err(response) => return *response,
    };
    let client = registry::client(server).await;
    let result = registry::with_sign_in(server, || client.list_prompts()).await;
    let offers_none = client.server().is_some_and(|s| !s.has_capability("prompts"));
    match result {
        Ok(list) => Response::Prompts { server_id, prompts: list.prompts },
        Err(_) if offers_none => Response::Prompts { server_id, prompts: Vec::new() },
        Err(failure) => {
            let explained = registry::settle(server, &client, Some(&failure)).await;
            answer(server, Err(failure), explained)
        }
    }
}

/// One prompt filled in (`prompts/get`).
pub async fn get_prompt(
    settings: Rc<Settings>,
    server_id: ServerId,
    name: String,
    arguments: serde_json::Map<String, Value>,
) -> Response {
    let server = match find(&settings, &server_id) {
        Ok(server) => server,
        Err(response) => return *response,
    };
    let client = registry::client(server).await;
    let result = registry::with_sign_in(server, || client.get_prompt(&name, &arguments, &())).await;
    let explained = registry::settle(server, &client, result.as_ref().err()).await;
    match result {
        Ok(result) => Response::Prompt { result },
        Err(failure) => answer(server, Err(failure), explained),
    }
}

/// A server's suggestions for an argument (`completion/complete`); none from a server that
/// offers no completion.
pub async fn complete(
    settings: Rc<Settings>,
    server_id: ServerId,
    reference: CompletionRef,
    argument: String,
    value: String,
    filled: serde_json::Map<String, Value>,
) -> Response {
    let server = match find(&settings, &server_id) {
        Ok(server) => server,
        Err(response) => return *response,
    };
    let client = registry::client(server).await;
    if client.server().is_some_and(|s| !s.has_capability("completions")) {
        return Response::Completion { completion: Default::default() };
    }
    let result =
        registry::with_sign_in(server, || client.complete(&reference, &argument, &value, &filled))
            .await;
    let explained = registry::settle(server, &client, result.as_ref().err()).await;
    match result {
        Ok(completion) => Response::Completion { completion },
        Err(failure) => answer(server, Err(failure), explained),
    }
}

/// A tool call as a page asked for it.
pub struct Call {
    pub call_id: String,
    pub server_id: ServerId,
    pub tool: String,
    pub arguments: Value,
    pub caller: Caller,
    pub consent: AppConsent,
}

/// An app's call under the person's rules (`core::tools::app_calls`): `None` when it may run,
/// else the page's answer (refused, or a question for the person).
fn app_call_answer(
    settings: &Settings,
    server: &Server,
    call: &Call,
    tool: Option<&Tool>,
) -> Option<Response> {
    let filter =
        ToolFilter { include: server.include_tools.clone(), exclude: server.exclude_tools.clone() };
    let rules = ServerRules {
        name: &server.name,
        filter: &filter,
        trusted: server.trust,
        always_allowed: server.allowed_tools.contains(&call.tool),
        confirm_after_page_content: settings.confirms_after_page_content(server.id.as_str()),
    };
    let now = gemipanel_browser::http::now_ms();
    match app_calls::verdict(&rules, &call.tool, tool, call.consent.page_content_seen) {
        AppCallVerdict::Refused(error) => Some(Response::Error { error }),
        AppCallVerdict::Run => None,
        AppCallVerdict::Ask { because_of_page_content } => {
            let asked =
                AskedCall::new(&call.call_id, server.id.as_str(), &call.tool, &call.arguments);
            let allowed = call.consent.allowed
                && crate::worker::with(|w| w.app_asks.borrow_mut().allowed(&asked, now));
            if allowed {
                return None;
            }
            crate::worker::with(|w| w.app_asks.borrow_mut().ask(asked, now));
            Some(Response::ConfirmAppCall { because_of_page_content })
        }
    }
}

pub async fn call(settings: Rc<Settings>, port: Option<Port>, call: Call) -> Response {
    let server = match find(&settings, &call.server_id) {
        Ok(server) => server,
        Err(response) => return *response,
    };
    // The worker holds the tool list: it decides who may call what (an app's tools/call comes
    // through a page, and a page is not trusted to check).
    let listed = registry::fetch_tools(server, false).await.ok();
    let tool = listed.as_ref().and_then(|l| l.tools.iter().find(|t| t.name == call.tool));
    if call.caller == Caller::App {
        if let Some(answer) = app_call_answer(&settings, server, &call, tool) {
            return answer;
        }
    } else if !call.caller.may_call(tool) {
        return Response::Error {
            error: Text::new("errToolHidden").arg(&call.tool).arg(&server.name),
        };
    }
    let arguments =
        if call.arguments.is_null() { Value::Object(Default::default()) } else { call.arguments };
    let client = registry::client(server).await;
    let guard = calls::register(&call.call_id);
    let handler = PageHandler { call_id: call.call_id, port, server };
    let tool = call.tool;
    let run = || client.call_tool(&tool, arguments.clone(), &handler, Some(&guard.token));
    let result = registry::with_sign_in(server, run).await;
    drop(guard);
    let explained = registry::settle(server, &client, result.as_ref().err()).await;
    answer(server, result.map(|result| Response::ToolResult { result }), explained)
}

/// Reads a resource of `server`; the page's answer when that fails.
async fn read(server: &Server, uri: &str) -> Result<ReadResourceResult, Response> {
    let client = registry::client(server).await;
    let result = registry::with_sign_in(server, || client.read_resource(uri, &())).await;
    let explained = registry::settle(server, &client, result.as_ref().err()).await;
    result.map_err(|failure| answer(server, Err(failure), explained))
}

/// The page's answer: the result, or the explained error (`settle` explains every one), with
/// a sign-in the person must start set apart so the page can offer it.
fn answer(server: &Server, result: Result<Response, Failure>, explained: Option<Text>) -> Response {
    let error = explained.unwrap_or_else(|| Text::new("errUnknown"));
    match result {
        Ok(response) => response,
        Err(Failure::NeedsSignIn) => Response::SignInNeeded { server_id: server.id.clone(), error },
        Err(_) => Response::Error { error },
    }
}

pub async fn read_resource(settings: Rc<Settings>, server_id: ServerId, uri: String) -> Response {
    let server = match find(&settings, &server_id) {
        Ok(server) => server,
        Err(response) => return *response,
    };
    match read(server, &uri).await {
        Ok(result) => Response::Resource { result },
        Err(response) => response,
    }
}

/// A tool's app, checked here so that a page holding the same HTML is not sent it again.
pub async fn read_app(
    settings: Rc<Settings>,
    server_id: ServerId,
    uri: String,
    held: Option<String>,
) -> Response {
    let server = match find(&settings, &server_id) {
        Ok(server) => server,
        Err(response) => return *response,
    };
    let result = match read(server, &uri).await {
        Ok(result) => result,
        Err(response) => return response,
    };
    match app_read(&uri, result, held.as_deref()) {
        Ok(read) => Response::App { read },
        Err(error) => Response::Error { error },
    }
}

/// Connects to a server that is not saved: a client of its own, closed afterwards.
pub async fn test_connection(draft: ServerDraft, run: Option<String>) -> Response {
    if draft.local.is_some() {
        return Response::ConnectionTest { outcome: try_local(&draft, run).await };
    }
    let outcome = match url_policy::check(
        &draft.url,
        Policy::Configured { local_network: draft.local_network },
    ) {
        Err(refusal) => ConnectionOutcome::Failed { error: refusal.text() },
        Ok(url) => {
            let transport = ServerTransport::Remote(gemipanel_browser::http::FetchTransport);
            try_connect(transport, url.as_str(), &draft).await
        }
    };
    Response::ConnectionTest { outcome }
}

/// The line as the bridge would run a form's command (values left blank are the stored
/// server's), or as configured when the bridge cannot be asked. Nothing runs.
pub async fn preview_command(
    settings: Rc<Settings>,
    server_id: Option<ServerId>,
    mut local: LocalCommand,
) -> Response {
    let stored = server_id.and_then(|id| settings.server(&id).cloned());
    if let Some(stored) = stored.as_ref().and_then(|server| server.local.as_ref()) {
        local.keep_values_from(stored);
    }
    let line = match gemipanel_core::settings::validate_local(&local) {
        Ok(()) => crate::local::bridge().resolve(PREVIEW, &local.spec()).await.ok(),
        Err(_) => None,
    };
    Response::CommandPreview { line: line.unwrap_or_else(|| local.run_line()) }
}

/// The name the bridge knows a form's command by while it shows its line.
const PREVIEW: &str = "preview";

/// Runs a local server's draft under an id of its own (the person clicked Test with the command
/// line in front of them, `run` its fingerprint: that is their confirmation), then ends it.
async fn try_local(draft: &ServerDraft, run: Option<String>) -> ConnectionOutcome {
    let Some(local) = &draft.local else {
        return ConnectionOutcome::Failed { error: Text::new("errUnknown") };
    };
    if let Err(invalid) = gemipanel_core::settings::validate_local(local) {
        return ConnectionOutcome::Failed { error: invalid.text() };
    }
    let random: [u8; 16] = gemipanel_browser::chrome::random_bytes().unwrap_or_default();
    let mut server = Server::blank(ServerId::generate(random), draft.name.clone());
    server.local = Some(local.clone());
    server.confirmed_command = Some(local.fingerprint());
    server.confirmed_run = Some(run.unwrap_or_else(|| local.run_line().fingerprint));
    let id = format!("test_{}", server.id);
    let (transport, url) = crate::local::transport_for(&server, &id);
    let outcome = try_connect(transport, &url, draft).await;
    let outcome = match outcome {
        ConnectionOutcome::Failed { error } => match crate::local::bridge().problem(&id) {
            // Not the line the person saw: they see this one, and nothing ran.
            Some(Problem::NotConfirmed(line)) => {
                ConnectionOutcome::Failed { error: Text::new("errTestRunDiffers").arg(line.text()) }
            }
            Some(problem) => ConnectionOutcome::Failed { error: problem.text() },
            None => ConnectionOutcome::Failed { error },
        },
        other => other,
    };
    crate::local::stop(&id);
    outcome
}

async fn try_connect(
    transport: ServerTransport,
    url: &str,
    draft: &ServerDraft,
) -> ConnectionOutcome {
    let headers = draft.headers.iter().flatten().map(|(n, v)| (n.clone(), v.expose().to_owned()));
    let config = registry::config_of(url, headers, draft.timeout_ms.unwrap_or(DEFAULT_TIMEOUT_MS));
    let client = Client::new(transport, config);
    let listed = async {
        client.connect().await?;
        client.list_tools_cacheable().await
    }
    .await;
    let outcome = match listed {
        Ok(list) => ConnectionOutcome::Connected {
            protocol_version: client.session().map(|s| s.protocol_version).unwrap_or_default(),
            server_name: client.server().and_then(|s| s.name().map(str::to_owned)),
            tools: list.tools,
            invalid: list.invalid,
        },
        Err(err) if err.is_auth_required() => {
            let challenge = err.www_authenticate().map(str::to_owned);
            ConnectionOutcome::NeedsSignIn { issuer: auth::find_issuer(url, challenge).await }
        }
        // A local server's address is internal: the person knows it by the name they typed.
        Err(err) if draft.local.is_some() => {
            ConnectionOutcome::Failed { error: err.text_naming(&draft.name) }
        }
        Err(err) => match registry::explain(url, &err).await {
            (ServerStatus::NeedsPermission { origin }, _) => {
                ConnectionOutcome::NeedsPermission { origin }
            }
            (_, error) => ConnectionOutcome::Failed { error },
        },
    };
    // Ending the session is a courtesy; the outcome stands either way.
    let _ = client.close().await;
    outcome
}

pub fn cancel(call_id: &str) -> Response {
    if calls::cancel(call_id) {
        Response::Ok
    } else {
        Response::Error { error: Text::new("errNoSuchCall").arg(call_id) }
    }
}
