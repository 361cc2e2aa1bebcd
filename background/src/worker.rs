//! The worker's state: everything it holds in memory, in one place.
//!
//! It all dies with the worker (Chrome stops an idle one after 30 s); what must outlive it is in
//! `chrome.storage`. The modules keep the behaviour: each reads and changes its own part through
//! [`with`]. Each part has a cell of its own, so a step that holds one part borrowed may call a
//! module that takes another (`registry::retain` stops local servers while it walks the
//! clients). Lists, not `HashMap`s: there are a handful of servers, calls and pages, and every
//! `HashMap` type brings its own copy of the hash table code into the wasm.

use std::cell::{Cell, OnceCell, RefCell};
use std::rc::Rc;

use futures_channel::oneshot;
use gemipanel_browser::chrome::Port;
use gemipanel_core::mcp::{
    CancelToken, Client, ElicitResult, Freshness, InvalidTool, SessionState, Tool,
};
use gemipanel_core::messages::ServerStatus;
use gemipanel_core::native::link::Bridge;
use gemipanel_core::oauth::authorizer::Authorizer;
use gemipanel_core::resource_updates::Demand;
use gemipanel_core::settings::{Server, ServerId, Settings, SettingsEdit};
use gemipanel_core::sync::{FifoLock, SingleFlight};
use gemipanel_core::text::Text;
use gemipanel_core::tools::app_calls::AppCallAsks;
use gemipanel_core::vault::VaultRecord;

use crate::events::{Dispatcher, WorkerEvent};
use crate::transport::ServerTransport;

pub type McpClient = Client<ServerTransport>;

pub struct Worker {
    started_at_ms: Cell<f64>,
    dispatcher: Cell<Option<Dispatcher>>,
    /// The pages connected right now (`ports`).
    pub ports: RefCell<Vec<Port>>,
    /// One MCP client per configured server, with its status and tools (`registry`).
    pub servers: RefCell<Vec<ServerEntry>>,
    /// The one connection to the native bridge, made on first use (`local`).
    pub bridge: OnceCell<Rc<Bridge>>,
    /// Change subscriptions while a page is open (`listen`).
    pub listening: RefCell<Vec<Listening>>,
    /// Whether the subscriptions of the worker before this one were taken up again, and the
    /// servers listened to as last kept for the next one (`listen`).
    pub listen_resumed: Cell<bool>,
    pub listened_kept: RefCell<Option<Vec<ServerId>>>,
    /// What the open chats follow, by page, and the servers' tasks that follow it
    /// (`resource_watch`).
    pub followed: RefCell<Demand<Page>>,
    pub following: RefCell<Vec<Following>>,
    /// Tool calls in progress and the questions their servers asked (`calls`).
    pub calls: RefCell<Vec<RunningCall>>,
    pub next_call: Cell<u64>,
    pub elicitations: RefCell<Vec<PendingElicitation>>,
    pub next_elicitation: Cell<u64>,
    /// The app calls the person was asked about and has not answered (`servers`): a page
    /// sending the call again after the worker stopped is asked again.
    pub app_asks: RefCell<AppCallAsks>,
    /// The settings document's queue and cache (`store`).
    pub settings: SettingsState,
    /// The passphrase's key and the vault's record, as last read (`vault`).
    pub vault: VaultMemory,
    /// Sign-in's locks and rules (`auth`).
    pub sign_in: SignInState,
    /// Whether `chrome.storage.sync` changes are followed (`settings_sync`).
    pub sync_watching: Cell<bool>,
}

/// A server's client and what the worker knows of it (`registry`).
pub struct ServerEntry {
    pub id: ServerId,
    /// The configuration the client was made with; one that does not
    /// [`makes_same_client`](Server::makes_same_client) gets a new client.
    pub made_from: Server,
    pub client: Rc<McpClient>,
    /// The server's sign-in; its token goes into `client`'s requests.
    pub auth: Rc<Authorizer>,
    pub status: ServerStatus,
    /// Tools fetched from the live server since the worker started.
    /// Shared, not copied: every tool call looks its tool up here.
    pub tools: Option<Rc<Listed>>,
    /// When `tools` arrived and for how long they may be reused (2026-07-28 `ttlMs`).
    pub tools_at_ms: u64,
    pub freshness: Freshness,
    pub saved_session: Option<SessionState>,
    /// The tool list fetch under way, shared by everyone who asks meanwhile.
    pub listing: Rc<SingleFlight<Result<Rc<Listed>, Unlisted>>>,
    /// A changed-list notification is waiting to be acted on (a storm is one refetch).
    pub refetch_due: bool,
}

/// A server's tools, and those it listed that could not be read.
#[derive(Clone, Debug, Default)]
pub struct Listed {
    pub tools: Vec<Tool>,
    pub invalid: Vec<InvalidTool>,
}

/// Why a server's tools could not be had; a sign-in only the person can start is set apart,
/// so that a page can offer it.
#[derive(Clone)]
pub enum Unlisted {
    NeedsSignIn(Text),
    Failed(Text),
}

/// One server's change subscription (`listen`).
pub struct Listening {
    pub id: ServerId,
    pub client: Rc<McpClient>,
    pub stop: CancelToken,
}

impl Drop for Listening {
    fn drop(&mut self) {
        // Ends the task's `keep_listening`, which drops (and so aborts) the stream.
        self.stop.cancel();
    }
}

/// A page, compared as the port it holds.
pub struct Page(pub Port);

impl PartialEq for Page {
    fn eq(&self, other: &Self) -> bool {
        self.0.is(&other.0)
    }
}

/// One server's task following resources: the URIs it was started with and the client it runs
/// on (known once the task has it; a replaced client restarts it) (`resource_watch`).
pub struct Following {
    pub id: ServerId,
    pub uris: Vec<String>,
    pub client: Rc<RefCell<Option<Rc<McpClient>>>>,
    pub stop: CancelToken,
}

impl Drop for Following {
    fn drop(&mut self) {
        self.stop.cancel();
    }
}

/// A tool call in progress (`calls`).
pub struct RunningCall {
    pub call_id: String,
    pub serial: u64,
    pub token: CancelToken,
}

/// A server's question waiting for the person's answer in the page that made the call.
pub struct PendingElicitation {
    pub elicitation_id: String,
    pub port: Port,
    pub answer: oneshot::Sender<ElicitResult>,
}

pub type EditReply = oneshot::Sender<Result<Settings, Text>>;

/// The settings document's queue and cache (`store`).
#[derive(Default)]
pub struct SettingsState {
    pub queue: Rc<FifoLock>,
    /// Edits waiting, oldest first.
    pub pending: RefCell<Vec<(SettingsEdit, EditReply)>>,
    pub draining: Cell<bool>,
    /// The document as last read, so a tool call does not parse the whole document again.
    /// Dropped whenever `settings` changes in storage, whoever wrote it.
    pub cached: RefCell<Option<Rc<Settings>>>,
    pub watching: Cell<bool>,
    /// Counts the changes of the stored document: a read that awaited past one does not keep
    /// what it read, which may be older.
    pub changes: Cell<u64>,
}

/// The passphrase's key and the vault's record (`vault`).
#[derive(Default)]
pub struct VaultMemory {
    pub key: RefCell<Option<Rc<Vec<u8>>>>,
    /// The stored record as last read or written here, so that the check before every tool
    /// call costs no storage round trip. The worker is the record's only writer (`rekey`); a
    /// change from elsewhere (storage cleared) drops the copy (`store`'s storage listener).
    pub record: RefCell<Option<Option<VaultRecord>>>,
}

/// Sign-in's locks and rules (`auth`).
#[derive(Default)]
pub struct SignInState {
    /// Read-modify-write of the registered clients, shared by every server's sign-in.
    pub clients_lock: Rc<FifoLock>,
    /// One sign-in window at a time: a second Sign in waits for the first to end.
    pub window_lock: Rc<FifoLock>,
    /// URLs whose `Origin` rule is in place (session rules outlive the worker; this does not,
    /// and putting one in place again is harmless).
    pub without_origin: RefCell<Vec<String>>,
}

impl Worker {
    fn new() -> Worker {
        Worker {
            started_at_ms: Cell::new(0.0),
            dispatcher: Cell::new(None),
            ports: RefCell::default(),
            servers: RefCell::default(),
            bridge: OnceCell::new(),
            listening: RefCell::default(),
            listen_resumed: Cell::new(false),
            listened_kept: RefCell::default(),
            followed: RefCell::default(),
            following: RefCell::default(),
            calls: RefCell::default(),
            next_call: Cell::new(1),
            elicitations: RefCell::default(),
            next_elicitation: Cell::new(1),
            app_asks: RefCell::default(),
            settings: SettingsState::default(),
            vault: VaultMemory::default(),
            sign_in: SignInState::default(),
            sync_watching: Cell::new(false),
        }
    }
}

thread_local! {
    static WORKER: Worker = Worker::new();
}

/// Runs `f` on the worker's state.
pub fn with<R>(f: impl FnOnce(&Worker) -> R) -> R {
    WORKER.with(f)
}

/// The worker started (`start`), handing its events to `dispatcher`.
pub fn started(dispatcher: Dispatcher) {
    with(|w| {
        w.started_at_ms.set(js_sys::Date::now());
        w.dispatcher.set(Some(dispatcher));
    });
}

pub fn uptime_ms() -> u64 {
    let started = with(|w| w.started_at_ms.get());
    (js_sys::Date::now() - started).max(0.0) as u64
}

/// Hands `event` to the dispatcher. `background.js` calls `start` before anything else, so
/// there is always one.
pub fn raise(event: WorkerEvent<'_>) {
    match with(|w| w.dispatcher.get()) {
        Some(dispatch) => dispatch(event),
        None => web_sys::console::error_1(&"GemiPanel: an event before the worker started".into()),
    }
}
