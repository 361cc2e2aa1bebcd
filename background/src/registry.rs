//! One MCP client per configured server, created on first use, with its status and tools.
//!
//! Clients live as long as the worker; what must outlive it (the negotiated protocol version and
//! session id) is kept in `chrome.storage.session`, so a revived worker resumes the session
//! instead of starting over. The last good tool list of each server is kept under a storage key
//! of its own (`core::tool_cache`) so pages can show tools before a server answers.

use std::cell::RefCell;
use std::rc::Rc;
use std::time::Duration;

use gemipanel_browser::chrome;
use gemipanel_browser::http::now_ms;
use gemipanel_browser::messaging::{from_js, to_js};
use gemipanel_browser::timers;
use gemipanel_core::mcp::{self, Client, Freshness, ServerConfig, SessionState, Tool};
use gemipanel_core::messages::{Event, ServerStatus};
use gemipanel_core::native::link::Problem;
use gemipanel_core::oauth::authorizer::Failure;
use gemipanel_core::oauth::{ClientOptions, Credentials};
use gemipanel_core::saved_session::SavedSession;
use gemipanel_core::server_status::{self, LocalFacts};
use gemipanel_core::settings::{Server, ServerId};
use gemipanel_core::sync::within;
use gemipanel_core::text::Text;
use gemipanel_core::tool_cache::CachedTools;

use crate::auth::{self, authorized, Authorizer, Interaction};
use crate::events::WorkerEvent;
use crate::local;
use crate::worker::ServerEntry as Entry;
use crate::{ports, worker};

pub use crate::worker::{Listed, McpClient, Unlisted};

fn entries<R>(f: impl FnOnce(&RefCell<Vec<Entry>>) -> R) -> R {
    worker::with(|w| f(&w.servers))
}

/// Runs `f` on the entry of server `id`, if the worker has one.
fn with_entry<R>(id: &ServerId, f: impl FnOnce(&mut Entry) -> R) -> Option<R> {
    entries(|entries| entries.borrow_mut().iter_mut().find(|e| e.id == *id).map(f))
}

/// The `chrome.storage.session` key of a server's [`SavedSession`].
fn session_key(id: &ServerId) -> String {
    format!("mcp_session_{id}")
}

/// How the client for `server` is configured.
pub fn config_of(
    url: &str,
    headers: impl Iterator<Item = (String, String)>,
    timeout_ms: u64,
) -> ServerConfig {
    let mut config = ServerConfig::new(url);
    config.headers = headers.collect();
    config.request_timeout = Duration::from_millis(timeout_ms.max(1));
    config
}

/// The client for `server`, created (resuming a saved session) on first use.
pub async fn client(server: &Server) -> Rc<McpClient> {
    if let Some(client) = existing(server) {
        return client;
    }
    let saved = saved_session(server).await;
    let credentials = auth::stored_credentials(&server.id).await;
    let signer = auth::kept_signer(&server.id, credentials.as_ref()).await;
    // Another request may have created it while storage was read.
    if let Some(client) = existing(server) {
        return client;
    }
    let (transport, url) = local::transport_for(server, server.id.as_str());
    let config = config_of(
        &url,
        server.headers.iter().map(|(n, v)| (n.clone(), v.expose().to_owned())),
        server.timeout_ms,
    );
    let options = ClientOptions::for_server(&server.oauth, credentials.as_ref());
    let auth = Authorizer::new(
        &url,
        options,
        &auth::redirect_uri(),
        config.authorization.clone(),
        credentials,
        signer,
    );
    let client = Rc::new(Client::resuming(transport, config, saved.clone()));
    let entry = Entry {
        id: server.id.clone(),
        made_from: server.clone(),
        client: client.clone(),
        auth: Rc::new(auth),
        status: ServerStatus::Idle,
        tools: None,
        tools_at_ms: 0,
        freshness: Freshness::UntilChanged,
        saved_session: saved,
        listing: Rc::default(),
        refetch_due: false,
    };
    entries(|entries| {
        let mut entries = entries.borrow_mut();
        entries.retain(|e| e.id != server.id);
        entries.push(entry);
    });
    client
}

/// The sign-in of `server` (creating its client first if needed).
pub async fn authorizer(server: &Server) -> Rc<Authorizer> {
    loop {
        client(server).await;
        if let Some(auth) = with_entry(&server.id, |e| e.auth.clone()) {
            return auth;
        }
    }
}

/// The credentials `server` is signed in with, without making a client for it: a listing that
/// read the settings before an edit would otherwise put a client of the old configuration in
/// place of the new one's (a saved local server then stayed "not connected").
pub async fn signed_in_with(server: &Server) -> Option<Credentials> {
    let held =
        with_entry(&server.id, |e| server.makes_same_client(&e.made_from).then(|| e.auth.clone()));
    match held.flatten() {
        Some(auth) => auth.credentials(),
        None => auth::stored_credentials(&server.id).await,
    }
}

/// Runs one request of `server`'s client with its sign-in: refreshed silently as needed; a
/// sign-in the person must start ends it with [`Failure::NeedsSignIn`].
pub async fn with_sign_in<T, Fut>(
    server: &Server,
    operation: impl FnMut() -> Fut,
) -> Result<T, Failure>
where
    Fut: std::future::Future<Output = Result<T, mcp::Error>>,
{
    let auth = authorizer(server).await;
    let host = auth::Host { server_id: server.id.clone() };
    authorized(&auth, &host, Interaction::Silent, operation).await
}

/// After the person signed in: the tools again, with the new token.
pub async fn signed_in(server: &Server) {
    let _ = fetch_tools(server, true).await;
}

/// After sign-out the server waits for the next sign-in.
pub fn signed_out(server: &Server) {
    set_status(&server.id, ServerStatus::NeedsSignIn);
}

/// Whether `client` is the one the registry holds for `server` as configured.
fn is_current(server: &Server, client: &McpClient) -> bool {
    existing(server).is_some_and(|held| std::ptr::eq(&*held, client))
}

/// The client held for `server`, if it was made for the same configuration.
fn existing(server: &Server) -> Option<Rc<McpClient>> {
    with_entry(&server.id, |e| server.makes_same_client(&e.made_from).then(|| e.client.clone()))
        .flatten()
}

async fn saved_session(server: &Server) -> Option<SessionState> {
    let raw = chrome::session_get(&session_key(&server.id)).await.ok()?;
    if raw.is_undefined() {
        return None;
    }
    let saved: SavedSession = from_js(raw).ok()?;
    (saved.url == server.client_address()).then_some(saved.state)
}

/// Writes the client's session to `chrome.storage.session` when it changed.
pub async fn save_session(server: &Server, client: &McpClient) {
    let now = client.session();
    let changed = with_entry(&server.id, |entry| {
        let changed = entry.saved_session != now;
        entry.saved_session = now.clone();
        changed
    });
    if changed != Some(true) {
        return;
    }
    let key = session_key(&server.id);
    let result = match now {
        Some(state) => match to_js(&SavedSession { url: server.client_address(), state }) {
            Ok(value) => chrome::session_set(&key, &value).await,
            Err(e) => Err(e),
        },
        None => chrome::session_remove(&key).await,
    };
    if let Err(err) = result {
        web_sys::console::warn_1(&format!("the MCP session was not saved: {err}").into());
    }
}

/// The status shown for `id`: `Idle` until the worker has talked to it.
pub fn status(id: &ServerId) -> ServerStatus {
    with_entry(id, |e| e.status.clone()).unwrap_or(ServerStatus::Idle)
}

/// The status shown for `server` (`core::server_status::shown`): a local server's command line
/// is shown as the bridge will run it when the bridge said so.
pub fn status_of(server: &Server) -> ServerStatus {
    let Some(local) = &server.local else { return status(&server.id) };
    let facts = LocalFacts {
        can_connect_native: chrome::can_connect_native(),
        run_line: || local::run_line(server, local),
        problem: (),
    };
    server_status::shown(server, facts, || status(&server.id))
}

/// The tools fetched from the live server since the worker started.
pub fn live_tools(id: &ServerId) -> Option<Rc<Listed>> {
    with_entry(id, |e| e.tools.clone()).flatten()
}

/// The live list while it may be reused without asking the server (a 2026-07-28 server's
/// `ttlMs`).
pub fn fresh_tools(id: &ServerId) -> Option<Rc<Listed>> {
    with_entry(id, |entry| {
        let fresh = entry.freshness.is_fresh(entry.tools_at_ms, now_ms());
        entry.tools.clone().filter(|_| fresh)
    })
    .flatten()
}

/// Records a status and tells the pages when it changed.
pub fn set_status(id: &ServerId, status: ServerStatus) {
    let changed = with_entry(id, |entry| {
        let changed = entry.status != status;
        entry.status = status.clone();
        changed
    });
    if changed == Some(true) {
        ports::broadcast(Event::ServerStatus { server_id: id.clone(), status });
        worker::raise(WorkerEvent::ClientsChanged);
    }
}

/// Every client with its server and whether the server is ready.
pub fn clients() -> Vec<(ServerId, Rc<McpClient>, bool)> {
    entries(|entries| {
        let entries = entries.borrow();
        let ready = |e: &Entry| matches!(e.status, ServerStatus::Ready { .. });
        entries.iter().map(|e| (e.id.clone(), e.client.clone(), ready(e))).collect()
    })
}

/// Forgets every client (Delete everything), stopping local servers; the clients, for their
/// sessions to be ended.
pub fn take_all() -> Vec<Rc<McpClient>> {
    let entries = entries(|entries| std::mem::take(&mut *entries.borrow_mut()));
    for entry in &entries {
        local::stop(entry.id.as_str());
    }
    worker::raise(WorkerEvent::ClientsChanged);
    entries.into_iter().map(|e| e.client).collect()
}

/// Forgets the clients of servers that are no longer configured (and their saved sessions) or
/// whose address, headers or timeout changed, closing their subscriptions at once: a moved
/// server is listened to at its new address from its next listing, not from its next use.
pub fn retain(servers: &[Server]) {
    let gone: Vec<ServerId> = entries(|entries| {
        let mut entries = entries.borrow_mut();
        let current =
            |e: &Entry| servers.iter().any(|s| s.id == e.id && s.makes_same_client(&e.made_from));
        let gone = entries
            .iter()
            .filter(|e| !servers.iter().any(|s| s.id == e.id))
            .map(|e| e.id.clone())
            .collect();
        // A local server that is gone or runs another command ends now.
        for entry in entries.iter().filter(|e| !current(e)) {
            local::stop(entry.id.as_str());
        }
        entries.retain(current);
        gone
    });
    worker::raise(WorkerEvent::ClientsChanged);
    for id in gone {
        wasm_bindgen_futures::spawn_local(async move {
            let _ = chrome::session_remove(&session_key(&id)).await;
            forget_tools(&id).await;
        });
    }
}

/// After a request: save the session, and mark the server ready or record why it failed.
/// Returns the error's message for the page (see [`explain`]): explained once, here, for both
/// the status and the answer.
// Takes the error alone, not the result: one copy of this async fn instead of one per result type.
pub async fn settle(
    server: &Server,
    client: &McpClient,
    failure: Option<&Failure>,
) -> Option<Text> {
    save_session(server, client).await;
    // A call that ends after the settings replaced its client (a command line allowed, a
    // header changed meanwhile) says nothing of the server as configured now: its status would
    // overwrite the new client's (a local server stuck at "allow this line" once allowed).
    let set_status = |id: &ServerId, status| {
        if is_current(server, client) {
            set_status(id, status);
        }
    };
    let err = match failure {
        None => {
            let version = client.session().map(|s| s.protocol_version).unwrap_or_default();
            set_status(&server.id, ServerStatus::Ready { protocol_version: version });
            return None;
        }
        Some(Failure::Mcp(err)) => err,
        Some(Failure::NeedsSignIn) => {
            set_status(&server.id, ServerStatus::NeedsSignIn);
            return Some(server_status::sign_in_message(server));
        }
        Some(failure @ Failure::OAuth(_)) => {
            let error = failure.text(&server.name);
            set_status(&server.id, ServerStatus::Error { error: error.clone() });
            return Some(error);
        }
    };
    let (status, message) = match explain_local(server, err) {
        Some(explained) => explained,
        None => explain(&server.url, err).await,
    };
    // A cancelled call or a tool's own error says nothing about the connection.
    if !err.is_cancelled() && err.rpc_error().is_none() {
        set_status(&server.id, status);
    }
    Some(message)
}

/// The status an error puts a server in, and its message (`core::server_status`): the browser
/// is asked whether the extension may reach the server's origin when that decides it.
pub async fn explain(url: &str, err: &mcp::Error) -> (ServerStatus, Text) {
    let missing = match server_status::permission_to_check(url, err) {
        Some(pattern) => match chrome::has_host_permission(&pattern).await {
            Ok(false) => Some(pattern),
            _ => None,
        },
        None => None,
    };
    server_status::explain_remote(err, missing.as_deref())
}

/// A local server's status and message (`core::server_status::explain_local`), with what the
/// browser and the bridge know; `None` for remote servers.
pub fn explain_local(server: &Server, err: &mcp::Error) -> Option<(ServerStatus, Text)> {
    let local = server.local.as_ref()?;
    let facts = LocalFacts {
        can_connect_native: chrome::can_connect_native(),
        run_line: || local::run_line(server, local),
        problem: || local::problem(server),
    };
    server_status::explain_local(server, err, facts)
}

/// A local server's process ended on its own (the bridge, `id` as it names the server): the
/// pages see its crash and stderr now, not at the next request that fails. A restart that
/// answers again makes it ready, as after any failure.
pub fn process_ended(id: &str, problem: &Problem) {
    let (id, problem) = (id.to_owned(), problem.clone());
    wasm_bindgen_futures::spawn_local(async move {
        let Ok(settings) = crate::store::read().await else { return };
        // Servers under test (`test_<id>`) are in no settings and have no status.
        let Some(server) = settings.servers.iter().find(|s| s.id.as_str() == id) else { return };
        set_status(&server.id, server_status::local_problem(server, &problem).0);
    });
}

/// Connects if needed and fetches the tool list; one fetch per server at a time, shared by
/// everyone who asks meanwhile. With `refresh` false a list fetched earlier in this worker's
/// life is returned while it is fresh (a 2026-07-28 server's `ttlMs`), and still when fetching
/// a stale one again fails. A fresh list is stored as the server's cached tools.
pub async fn fetch_tools(server: &Server, refresh: bool) -> Result<Rc<Listed>, Unlisted> {
    let client = client(server).await;
    if let Some(listed) = fresh_tools(&server.id).filter(|_| !refresh) {
        return Ok(listed);
    }
    let Some(listing) = with_entry(&server.id, |e| e.listing.clone()) else {
        return Err(Unlisted::Failed(Text::new("errServerGone").arg(&server.name)));
    };
    listing.run(|| fetch_now(server, &client, refresh)).await
}

async fn fetch_now(
    server: &Server,
    client: &McpClient,
    refresh: bool,
) -> Result<Rc<Listed>, Unlisted> {
    if is_current(server, client) && !matches!(status(&server.id), ServerStatus::Ready { .. }) {
        set_status(&server.id, ServerStatus::Connecting);
    }
    let limit = server_status::listing_deadline(server);
    let listing = with_sign_in(server, || client.list_tools_cacheable());
    let result = match within(listing, timers::sleep(limit)).await {
        Some(result) => result,
        None => {
            let message = server_status::listing_timed_out(server, limit);
            if is_current(server, client) {
                set_status(&server.id, ServerStatus::Error { error: message.clone() });
            }
            return Err(Unlisted::Failed(message));
        }
    };
    let explained = settle(server, client, result.as_ref().err()).await;
    match result {
        Ok(list) => {
            let listed = Rc::new(Listed { tools: list.tools, invalid: list.invalid });
            // Like the status (see `settle`): a list from a client the settings replaced
            // meanwhile is not the server's as configured now. Kept, it was served as fresh
            // and the new client never connected: the row stayed "not connected" for good.
            if is_current(server, client) {
                remember_tools(server, &listed, list.freshness);
            }
            Ok(listed)
        }
        Err(Failure::NeedsSignIn) => {
            Err(Unlisted::NeedsSignIn(server_status::sign_in_message(server)))
        }
        // The spec lets a stale list serve while the server cannot be asked.
        Err(_) => match live_tools(&server.id).filter(|_| !refresh) {
            Some(stale) => Ok(stale),
            // `settle` explains every error.
            None => Err(Unlisted::Failed(explained.unwrap_or_else(|| Text::new("errUnknown")))),
        },
    }
}

/// Keeps `listed` in memory and, when the tools differ from the stored list, in storage.
fn remember_tools(server: &Server, listed: &Rc<Listed>, freshness: Freshness) {
    with_entry(&server.id, |entry| {
        entry.tools = Some(listed.clone());
        entry.tools_at_ms = now_ms();
        entry.freshness = freshness;
    });
    let cache = CachedTools {
        url: server.url.clone(),
        fetched_at_ms: now_ms(),
        tools: listed.tools.clone(),
    };
    let key = CachedTools::key(&server.id);
    wasm_bindgen_futures::spawn_local(async move {
        if stored_tools_at(&key)
            .await
            .is_some_and(|stored| stored.url == cache.url && stored.tools == cache.tools)
        {
            return;
        }
        let result = match cache.to_stored() {
            Some(text) => match js_sys::JSON::parse(&text) {
                Ok(value) => chrome::local_set(&key, &value).await,
                Err(_) => Ok(()),
            },
            // Over the bound: served from memory only, and an older copy must not linger.
            None => chrome::local_remove(&key).await,
        };
        if let Err(err) = result {
            web_sys::console::warn_1(&format!("the tool list was not stored: {err}").into());
        }
    });
}

async fn stored_tools_at(key: &str) -> Option<CachedTools> {
    let raw = chrome::local_get(key).await.ok()?;
    if raw.is_undefined() {
        return None;
    }
    from_js(raw).ok()
}

/// The tools stored for `server`, for use before it answers; never a list of another URL.
pub async fn cached_tools(server: &Server) -> Option<Vec<Tool>> {
    stored_tools_at(&CachedTools::key(&server.id)).await?.for_url(&server.url)
}

/// How long a changed-list notification waits for more before the list is fetched again.
const REFETCH_DELAY: Duration = Duration::from_millis(300);

/// The server announced a changed tool list: fetch it again, then tell the pages. A storm of
/// notifications is one refetch.
pub fn tools_changed(server: Server) {
    let already = with_entry(&server.id, |e| std::mem::replace(&mut e.refetch_due, true));
    if already == Some(true) {
        return;
    }
    wasm_bindgen_futures::spawn_local(async move {
        timers::sleep(REFETCH_DELAY).await;
        with_entry(&server.id, |e| e.refetch_due = false);
        let _ = fetch_tools(&server, true).await;
        ports::broadcast(Event::ToolsChanged { server_id: server.id.clone() });
    });
}

/// Removes the stored tool lists of servers that are gone.
pub async fn forget_tools(id: &ServerId) {
    let _ = chrome::local_remove(&CachedTools::key(id)).await;
}
