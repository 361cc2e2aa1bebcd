//! How every MCP client reaches its server, remote or local: one type, so the MCP client is
//! compiled once for both (`local::transport_for` picks one for a server).

use std::future::Future;
use std::pin::Pin;

use gemipanel_browser::http::{FetchBody, FetchTransport};
use gemipanel_core::mcp::{
    HttpRequest, HttpResponse, HttpTransport, ResponseBody, Timer, TransportError,
};
use gemipanel_core::native::link::{LocalBody, LocalTransport};

/// `fetch`, or the bridge.
pub enum ServerTransport {
    Remote(FetchTransport),
    Local(LocalTransport<FetchTransport>),
    /// A local server whose command line the person has not confirmed: nothing runs.
    Unconfirmed,
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
