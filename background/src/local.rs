//! Local (stdio) servers: the one connection to the native bridge, and the transport every
//! MCP client uses, remote or local.
//!
//! The connection is made when a local server is first used (`chrome.runtime.connectNative`);
//! `core::native::link` does the rest. Chrome ends the bridge, and every server it runs, when
//! the worker stops; the next request starts them again and the client initializes anew.

use std::future::Future;
use std::pin::Pin;
use std::rc::Rc;

use gemipanel_browser::chrome;
use gemipanel_browser::http::{FetchBody, FetchTransport};
use gemipanel_browser::messaging::{from_object, to_object};
use gemipanel_core::mcp::{
    HttpRequest, HttpResponse, HttpTransport, ResponseBody, Timer, TransportError,
};
use gemipanel_core::native::link::{Bridge, LocalBody, LocalTransport, Port, Problem};
use gemipanel_core::native::run_line::RunLine;
use gemipanel_core::native::wire::{FromBridge, ToBridge};
use gemipanel_core::native::HOST_NAME;
use gemipanel_core::settings::{LocalCommand, Server};

thread_local! {
    static BRIDGE: Rc<Bridge> = {
        // Sessions of a worker Chrome stopped are in `chrome.storage.session`: a new seed
        // keeps them from naming a process of this worker's bridge.
        let seed = chrome::random_bytes().map(u64::from_le_bytes).unwrap_or_default();
        let bridge = Bridge::new(Box::new(connect), seed);
        bridge.on_exit(Box::new(|id, problem| {
            crate::worker::raise(crate::events::WorkerEvent::ProcessEnded { id, problem })
        }));
        Rc::new(bridge)
    };
}

pub fn bridge() -> Rc<Bridge> {
    BRIDGE.with(Rc::clone)
}

fn connect() -> Result<Rc<dyn Port>, Problem> {
    // `nativeMessaging` is optional: asked for when the person adds a local server.
    if !chrome::can_connect_native() {
        return Err(Problem::NoPermission);
    }
    let port =
        chrome::connect_native(HOST_NAME).map_err(|e| Problem::BridgeEnded(e.to_string()))?;
    // Decoded straight from the JS object Chrome made of the bridge's JSON (serde-wasm-bindgen),
    // not stringified and parsed again. A message that does not read is dropped, as in
    // `Bridge::receive`: a bridge of another version may say more.
    port.on_message(|value| {
        if let Ok(message) = from_object::<FromBridge>(value) {
            bridge().handle(message);
        }
    });
    port.on_disconnect(|| bridge().disconnected(chrome::last_error().as_deref()));
    Ok(Rc::new(NativePort(port)))
}

struct NativePort(chrome::Port);

impl Port for NativePort {
    fn post(&self, message: &ToBridge) -> Result<(), String> {
        let value = to_object(message).map_err(|e| e.to_string())?;
        self.0.post(&value).map_err(|e| e.to_string())
    }

    fn disconnect(&self) {
        self.0.disconnect();
    }
}

/// Where a server's client sends its requests: its URL, or a local server's bridge address.
pub fn address(server: &Server) -> String {
    match &server.local {
        Some(_) => LocalTransport::<FetchTransport>::url(server.id.as_str()),
        None => server.url.clone(),
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

/// How a client reaches its server: `fetch`, or the bridge. One type, so the MCP client is
/// compiled once for both.
pub enum ServerTransport {
    Remote(FetchTransport),
    Local(LocalTransport<FetchTransport>),
    /// A local server whose command line the person has not confirmed: nothing runs.
    Unconfirmed,
}

impl ServerTransport {
    /// The transport for `server` and the address its client is configured with.
    pub fn for_server(server: &Server, id: &str) -> (ServerTransport, String) {
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
}

pub enum ServerBody {
    Remote(FetchBody),
    Local(LocalBody),
}

impl ResponseBody for ServerBody {
    async fn next_chunk(&mut self) -> Result<Option<Vec<u8>>, TransportError> {
        match self {
            ServerBody::Remote(body) => body.next_chunk().await,
            ServerBody::Local(body) => body.next_chunk().await,
        }
    }
}

impl HttpTransport for ServerTransport {
    type Body = ServerBody;

    async fn send(&self, request: HttpRequest) -> Result<HttpResponse<ServerBody>, TransportError> {
        fn wrap<B>(r: HttpResponse<B>, body: fn(B) -> ServerBody) -> HttpResponse<ServerBody> {
            HttpResponse { status: r.status, headers: r.headers, body: body(r.body) }
        }
        match self {
            ServerTransport::Remote(fetch) => {
                Ok(wrap(fetch.send(request).await?, ServerBody::Remote))
            }
            ServerTransport::Local(local) => {
                Ok(wrap(send_local(local, request).await?, ServerBody::Local))
            }
            ServerTransport::Unconfirmed => {
                Err(TransportError::connect("the command line was not confirmed"))
            }
        }
    }
}

type LocalReply<'a> =
    Pin<Box<dyn Future<Output = Result<HttpResponse<LocalBody>, TransportError>> + 'a>>;

/// The bridge's exchange behind a pointer: the client awaits `send` in a dozen places, and each
/// would otherwise carry its own inlined copy of it.
#[inline(never)]
fn send_local(local: &LocalTransport<FetchTransport>, request: HttpRequest) -> LocalReply<'_> {
    Box::pin(local.send(request))
}

impl Timer for ServerTransport {
    fn sleep(&self, duration: std::time::Duration) -> impl std::future::Future<Output = ()> {
        FetchTransport.sleep(duration)
    }
}
