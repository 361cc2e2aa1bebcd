//! Local (stdio) servers: the one connection to the native bridge, and which transport a
//! server's client uses (`transport`).
//!
//! The connection is made when a local server is first used (`chrome.runtime.connectNative`);
//! `core::native::link` does the rest. Chrome ends the bridge, and every server it runs, when
//! the worker stops; the next request starts them again and the client initializes anew.

use std::rc::Rc;

use gemipanel_browser::chrome;
use gemipanel_browser::http::FetchTransport;
use gemipanel_browser::messaging::{from_js, to_js};
use gemipanel_core::native::link::{Bridge, LocalTransport, Port, Problem};
use gemipanel_core::native::run_line::RunLine;
use gemipanel_core::native::wire::{FromBridge, ToBridge};
use gemipanel_core::native::HOST_NAME;
use gemipanel_core::settings::{LocalCommand, Server};

use crate::events::WorkerEvent;
use crate::transport::ServerTransport;
use crate::worker;

/// The bridge, made on first use.
pub fn bridge() -> Rc<Bridge> {
    worker::with(|w| w.bridge.get_or_init(new_bridge).clone())
}

fn new_bridge() -> Rc<Bridge> {
    // Sessions of a worker Chrome stopped are in `chrome.storage.session`: a new seed keeps
    // them from naming a process of this worker's bridge.
    let seed = chrome::random_bytes().map(u64::from_le_bytes).unwrap_or_default();
    let bridge = Bridge::new(Box::new(connect), seed);
    bridge
        .on_exit(Box::new(|id, problem| worker::raise(WorkerEvent::ProcessEnded { id, problem })));
    Rc::new(bridge)
}

fn connect() -> Result<Rc<dyn Port>, Problem> {
    // `nativeMessaging` is optional: asked for when the person adds a local server.
    if !chrome::can_connect_native() {
        return Err(Problem::NoPermission);
    }
    let port =
        chrome::connect_native(HOST_NAME).map_err(|e| Problem::BridgeEnded(e.to_string()))?;
    // The bridge speaks JSON: its messages are read as every JSON document of the worker is
    // (`from_js`, serde_json), so the worker holds one decoder of them, which also reads the
    // messages `Bridge` joins from chunks. A message that does not read is dropped, as in
    // `Bridge::receive`: a bridge of another version may say more.
    port.on_message(|value| {
        if let Ok(message) = from_js::<FromBridge>(value) {
            bridge().handle(message);
        }
    });
    port.on_disconnect(|| bridge().disconnected(chrome::last_error().as_deref()));
    Ok(Rc::new(NativePort(port)))
}

struct NativePort(chrome::Port);

impl Port for NativePort {
    fn post(&self, message: &ToBridge) -> Result<(), String> {
        let value = to_js(message).map_err(|e| e.to_string())?;
        self.0.post(&value).map_err(|e| e.to_string())
    }

    fn disconnect(&self) {
        self.0.disconnect();
    }
}

/// Why a local server cannot be reached now, if the bridge knows.
pub fn problem(server: &Server) -> Option<Problem> {
    server.local.as_ref()?;
    bridge().problem(server.id.as_str())
}

/// The line `server` is to be allowed with: the bridge's, when it showed one for this command
/// line, else the line as configured.
pub fn run_line(server: &Server, local: &LocalCommand) -> RunLine {
    bridge().run_line(server.id.as_str(), &local.spec()).unwrap_or_else(|| local.run_line())
}

/// Asks the bridge for the line `server` would run as (kept for [`run_line`]); nothing when it
/// cannot be asked.
pub async fn resolve(server: &Server) {
    if let Some(local) = &server.local {
        let _ = bridge().resolve(server.id.as_str(), &local.spec()).await;
    }
}

/// Ends a local server's process (it was removed, or its command changed).
pub fn stop(id: &str) {
    bridge().stop(id);
}

/// The transport for `server` (its client known to the bridge as `id`) and the address its
/// client is configured with.
pub fn transport_for(server: &Server, id: &str) -> (ServerTransport, String) {
    match &server.local {
        None => (ServerTransport::Remote(FetchTransport), server.url.clone()),
        Some(_) if !server.command_confirmed() => {
            (ServerTransport::Unconfirmed, LocalTransport::<FetchTransport>::url(id))
        }
        Some(local) => {
            // A confirmation the person must give again gets the bridge's line instead.
            let allowed = server.allowed_run().unwrap_or_default();
            let transport =
                LocalTransport::new(bridge(), id, local.spec(), allowed, FetchTransport);
            (ServerTransport::Local(transport), LocalTransport::<FetchTransport>::url(id))
        }
    }
}
