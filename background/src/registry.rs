//! One MCP client per configured server, created on first use, with its status and tools.
//!
//! Clients live as long as the worker; what must outlive it (the negotiated protocol version and
//! session id) is kept in `chrome.storage.session`, so a revived worker resumes the session
//! instead of starting over. The last good tool list goes into the settings (`cached_tools`) so
//! pages can show tools before a server answers.

use std::cell::RefCell;
use std::rc::Rc;
use std::time::Duration;

use futures_channel::oneshot;
use gemipanel_browser::chrome;
use gemipanel_browser::http::{now_ms, FetchTransport};
use gemipanel_browser::messaging::{from_js, to_js};
use gemipanel_core::mcp::{self, Client, Freshness, ServerConfig, SessionState, Tool};
use gemipanel_core::messages::{Event, ServerStatus};
use gemipanel_core::saved_session::SavedSession;
use gemipanel_core::settings::{Server, ServerId, SettingsEdit};

use crate::{ports, store};

pub type McpClient = Client<FetchTransport>;

struct Entry {
    id: ServerId,
    /// The configuration the client was made with; a changed one gets a new client.
    config_key: String,
    client: Rc<McpClient>,
    status: ServerStatus,
    /// Tools fetched from the live server since the worker started.
    tools: Option<Vec<Tool>>,
    /// When `tools` arrived and for how long they may be reused (2026-07-28 `ttlMs`).
    tools_at_ms: u64,
    freshness: Freshness,
    saved_session: Option<SessionState>,
    /// Callers waiting for a tool list fetch already under way.
    waiting: Option<Vec<oneshot::Sender<()>>>,
}

thread_local! {
    // A list, not a `HashMap`: there are a handful of servers, and every `HashMap` type brings
    // its own copy of the hash table code into the wasm.
    static ENTRIES: RefCell<Vec<Entry>> = const { RefCell::new(Vec::new()) };
}

/// Runs `f` on the entry of server `id`, if the worker has one.
fn with_entry<R>(id: &ServerId, f: impl FnOnce(&mut Entry) -> R) -> Option<R> {
    ENTRIES.with(|entries| entries.borrow_mut().iter_mut().find(|e| e.id == *id).map(f))
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

fn config_key(server: &Server) -> String {
    // Holds header values (secrets) but never leaves memory.
    let mut key = format!("{}\n{}", server.url, server.timeout_ms);
    for (name, value) in &server.headers {
        key.push_str(&format!("\n{name}:{}", value.expose()));
    }
    key
}

/// The client for `server`, created (resuming a saved session) on first use.
pub async fn client(server: &Server) -> Rc<McpClient> {
    let key = config_key(server);
    if let Some(client) = existing(&server.id, &key) {
        return client;
    }
    let saved = saved_session(server).await;
    // Another request may have created it while storage was read.
    if let Some(client) = existing(&server.id, &key) {
        return client;
    }
    let config = config_of(
        &server.url,
        server.headers.iter().map(|(n, v)| (n.clone(), v.expose().to_owned())),
        server.timeout_ms,
    );
    let client = Rc::new(Client::resuming(FetchTransport, config, saved.clone()));
    let entry = Entry {
        id: server.id.clone(),
        config_key: key,
        client: client.clone(),
        status: ServerStatus::Idle,
        tools: None,
        tools_at_ms: 0,
        freshness: Freshness::UntilChanged,
        saved_session: saved,
        waiting: None,
    };
    ENTRIES.with(|entries| {
        let mut entries = entries.borrow_mut();
        entries.retain(|e| e.id != server.id);
        entries.push(entry);
    });
    client
}

fn existing(id: &ServerId, key: &str) -> Option<Rc<McpClient>> {
    with_entry(id, |e| (e.config_key == key).then(|| e.client.clone())).flatten()
}

async fn saved_session(server: &Server) -> Option<SessionState> {
    let raw = chrome::session_get(&session_key(&server.id)).await.ok()?;
    if raw.is_undefined() {
        return None;
    }
    let saved = SavedSession::from_json(&from_js(raw).ok()?)?;
    (saved.url == server.url).then_some(saved.state)
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
        Some(state) => match to_js(&SavedSession { url: server.url.clone(), state }.to_json()) {
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

/// The tools fetched from the live server since the worker started.
pub fn live_tools(id: &ServerId) -> Option<Vec<Tool>> {
    with_entry(id, |e| e.tools.clone()).flatten()
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
        crate::listen::sync();
    }
}

/// Every client with its server and whether the server is ready.
pub fn clients() -> Vec<(ServerId, Rc<McpClient>, bool)> {
    ENTRIES.with(|entries| {
        let entries = entries.borrow();
        let ready = |e: &Entry| matches!(e.status, ServerStatus::Ready { .. });
        entries.iter().map(|e| (e.id.clone(), e.client.clone(), ready(e))).collect()
    })
}

/// Forgets the clients of servers that are no longer configured (and their saved sessions) or
/// whose address, headers or timeout changed, closing their subscriptions at once: a moved
/// server is listened to at its new address from its next listing, not from its next use.
pub fn retain(servers: &[Server]) {
    let gone: Vec<ServerId> = ENTRIES.with(|entries| {
        let mut entries = entries.borrow_mut();
        let current =
            |e: &Entry| servers.iter().any(|s| s.id == e.id && config_key(s) == e.config_key);
        let gone = entries
            .iter()
            .filter(|e| !servers.iter().any(|s| s.id == e.id))
            .map(|e| e.id.clone())
            .collect();
        entries.retain(current);
        gone
    });
    crate::listen::sync();
    for id in gone {
        wasm_bindgen_futures::spawn_local(async move {
            let _ = chrome::session_remove(&session_key(&id)).await;
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
    error: Option<&mcp::Error>,
) -> Option<String> {
    save_session(server, client).await;
    let Some(err) = error else {
        let version = client.session().map(|s| s.protocol_version).unwrap_or_default();
        set_status(&server.id, ServerStatus::Ready { protocol_version: version });
        return None;
    };
    let message = explain(&server.url, err).await;
    // A cancelled call or a tool's own error says nothing about the connection.
    if !err.is_cancelled() && err.rpc_error().is_none() {
        let status = if err.is_auth_required() {
            ServerStatus::NeedsSignIn
        } else {
            ServerStatus::Error { message: message.clone() }
        };
        set_status(&server.id, status);
    }
    Some(message)
}

/// The error's message, plus what to do when the extension lacks access to the site: Chrome
/// reports a missing host permission exactly like a refused connection.
pub async fn explain(url: &str, err: &mcp::Error) -> String {
    let message = err.to_string();
    if !err.is_connect() {
        return message;
    }
    let Some(pattern) = origin_pattern(url) else { return message };
    match chrome::has_host_permission(&pattern).await {
        Ok(false) => format!(
            "GemiPanel has not been allowed to connect to {} yet: allow it when the popup asks \
             (edit the server and save it again). ({message})",
            pattern.trim_end_matches("/*")
        ),
        _ => message,
    }
}

/// `scheme://host/*` for a URL, the form `chrome.permissions` takes (ports are not part of it).
pub fn origin_pattern(url: &str) -> Option<String> {
    let url = gemipanel_core::web_url::parse(url)?;
    Some(format!("{}://{}/*", url.scheme, url.host_str()?))
}

/// Connects if needed and fetches the tool list (at most one fetch per server at a time; later
/// callers wait for the one under way). With `refresh` false a list fetched earlier in this
/// worker's life is returned while it is fresh (a 2026-07-28 server's `ttlMs`), and still when
/// fetching a stale one again fails. A fresh list is saved in the settings as the cached tools.
pub async fn fetch_tools(server: &Server, refresh: bool) -> Result<Vec<Tool>, String> {
    let client = client(server).await;
    enum Next {
        Done(Vec<Tool>),
        Wait(oneshot::Receiver<()>),
        Fetch,
    }
    let next = with_entry(&server.id, |entry| {
        if let Some(waiting) = &mut entry.waiting {
            let (sender, receiver) = oneshot::channel();
            waiting.push(sender);
            return Next::Wait(receiver);
        }
        match (&entry.tools, refresh) {
            (Some(tools), false) if entry.freshness.is_fresh(entry.tools_at_ms, now_ms()) => {
                Next::Done(tools.clone())
            }
            _ => {
                entry.waiting = Some(Vec::new());
                Next::Fetch
            }
        }
    })
    .unwrap_or(Next::Fetch);
    match next {
        Next::Done(tools) => return Ok(tools),
        Next::Wait(receiver) => {
            let _ = receiver.await;
            // The fetch we waited for is as fresh as asked for.
            if let Some(tools) = live_tools(&server.id) {
                return Ok(tools);
            }
            return Err(match status(&server.id) {
                ServerStatus::Error { message } => message,
                ServerStatus::NeedsSignIn => sign_in_message(server),
                _ => format!("{} did not list its tools", server.name),
            });
        }
        Next::Fetch => {}
    }
    if !matches!(status(&server.id), ServerStatus::Ready { .. }) {
        set_status(&server.id, ServerStatus::Connecting);
    }
    let result = client.list_tools_cacheable().await;
    let explained = settle(server, &client, result.as_ref().err()).await;
    let outcome = match result {
        Ok((tools, freshness)) => {
            remember_tools(server, &tools, freshness);
            Ok(tools)
        }
        Err(err) if err.is_auth_required() => Err(sign_in_message(server)),
        // The spec lets a stale list serve while the server cannot be asked.
        Err(_) => match live_tools(&server.id).filter(|_| !refresh) {
            Some(stale) => Ok(stale),
            // `settle` explains every error.
            None => Err(explained.unwrap_or_default()),
        },
    };
    let waiting = with_entry(&server.id, |e| e.waiting.take()).flatten();
    for sender in waiting.into_iter().flatten() {
        let _ = sender.send(());
    }
    outcome
}

fn sign_in_message(server: &Server) -> String {
    format!("{} needs you to sign in before it answers", server.name)
}

/// Keeps `tools` in memory and, when they differ from the cached list, in the settings.
fn remember_tools(server: &Server, tools: &[Tool], freshness: Freshness) {
    with_entry(&server.id, |entry| {
        entry.tools = Some(tools.to_vec());
        entry.tools_at_ms = now_ms();
        entry.freshness = freshness;
    });
    let values: Vec<serde_json::Value> = tools.iter().map(|t| t.as_value().clone()).collect();
    if server.cached_tools.as_ref().is_some_and(|c| c.tools == values) {
        return;
    }
    let edit = SettingsEdit::SetCachedTools {
        id: server.id.clone(),
        tools: values,
        fetched_at_ms: now_ms(),
    };
    // In the background: a listing should not wait behind queued edits. The server may have
    // been removed meanwhile; then there is nothing to cache.
    wasm_bindgen_futures::spawn_local(async move {
        let _ = store::edit(edit).await;
    });
}

/// The tools the settings remember for `server`, for use before it answers.
pub fn cached_tools(server: &Server) -> Option<Vec<Tool>> {
    let cached = server.cached_tools.as_ref()?;
    Some(cached.tools.iter().filter_map(|t| Tool::from_value(t.clone()).ok()).collect())
}
