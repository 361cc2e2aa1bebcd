//! The standalone SSE stream of a handshake-era session: an HTTP GET on the endpoint.
//!
//! Servers send requests and notifications that belong to no POST there. The TypeScript SDK
//! routes an `elicitation/create` that a tool handler sends without naming its call this way, so
//! a client without the stream never sees the question and the call hangs until it times out.
//! The client opens the stream before its first tool call of a session, keeps it across calls,
//! and reads it only while a tool call runs: a question then reaches the handler of the call that
//! caused it. Reading is cancel-safe: the pending read lives here, not in the future that is
//! dropped when the call ends, so no bytes are lost between calls.

use super::reply::ReplyDecoder;
use super::transport::{ResponseBody, TransportError};
use std::cell::RefCell;
use std::future::Future;
use std::pin::Pin;

type Read<B> = Pin<Box<dyn Future<Output = (B, Result<Option<Vec<u8>>, TransportError>)>>>;

pub(crate) struct Standalone<B> {
    pub session_id: String,
    pub decoder: ReplyDecoder,
    read: Option<Read<B>>,
    /// Which GET of this client it is (1, 2, …): tells a stream opened anew from one handed back.
    pub number: u64,
}

impl<B: ResponseBody + 'static> Standalone<B> {
    pub fn new(session_id: String, body: B, decoder: ReplyDecoder, number: u64) -> Self {
        Standalone { session_id, decoder, read: Some(read_next(body)), number }
    }

    /// The next chunk; `None` once the stream ended or broke, and from then on.
    pub async fn next_chunk(&mut self) -> Option<Vec<u8>> {
        let (body, chunk) = self.read.as_mut()?.await;
        match chunk {
            Ok(Some(bytes)) => {
                self.read = Some(read_next(body));
                Some(bytes)
            }
            _ => {
                self.read = None;
                None
            }
        }
    }

    /// Stops reading (after bytes that are not MCP); drops the connection.
    pub fn end(&mut self) {
        self.read = None;
    }

    pub fn is_ended(&self) -> bool {
        self.read.is_none()
    }
}

fn read_next<B: ResponseBody + 'static>(mut body: B) -> Read<B> {
    Box::pin(async move {
        let chunk = body.next_chunk().await;
        (body, chunk)
    })
}

/// Where a client keeps its stream between calls.
pub(crate) enum Slot<B> {
    Closed,
    Open(Standalone<B>),
    /// A running call reads it; parallel calls go without.
    InUse,
    /// The server answered the GET of this session with an error such as 405: it offers none.
    Refused(String),
}

/// A call's hold on the slot. Whatever `next` is when the call ends (or is dropped, cancelled
/// or timed out) goes back into the slot, so the slot never stays `InUse`.
pub(crate) struct Lease<'a, B> {
    slot: &'a RefCell<Slot<B>>,
    pub next: Slot<B>,
}

impl<'a, B> Lease<'a, B> {
    pub fn new(slot: &'a RefCell<Slot<B>>, next: Slot<B>) -> Self {
        Lease { slot, next }
    }
}

impl<B> Drop for Lease<'_, B> {
    fn drop(&mut self) {
        let next = std::mem::replace(&mut self.next, Slot::Closed);
        self.slot.replace(next);
    }
}

// ---- the client's side of the stream ----------------------------------------------------------

use super::client::{Client, Handler, Reply};
use super::error::Error;
use super::session::SessionState;
use super::transport::{HttpRequest, HttpTransport, Method, Timer};
use crate::jsonrpc::{Id, Message, Request};
use crate::sync::{first, Either};

impl<T: HttpTransport + Timer> Client<T>
where
    T::Body: 'static,
{
    /// A tool call of a handshake-era session also reads the session's standalone stream, where
    /// some servers send the call's questions (see `standalone`).
    pub(super) async fn exchange_listening(
        &self,
        session: &SessionState,
        request: Request,
        handler: &dyn Handler,
    ) -> Result<Reply, Error> {
        let mut lease = self.lease_standalone(session).await;
        let Some(Slot::Open(stream)) = lease.as_mut().map(|l| &mut l.next) else {
            return self.exchange(session, request, handler).await;
        };
        let outcome = first(
            self.exchange(session, request, handler),
            self.read_standalone(session, stream, handler),
        )
        .await;
        if stream.is_ended() {
            if let Some(lease) = lease.as_mut() {
                lease.next = Slot::Closed;
            }
        }
        match outcome {
            Either::Left(reply) => reply,
            Either::Right(never) => match never {},
        }
    }

    /// Takes the open stream of this session, or opens one; `None` when there is none to read.
    pub(super) async fn lease_standalone(
        &self,
        session: &SessionState,
    ) -> Option<Lease<'_, T::Body>> {
        let session_id = session.session_id.clone()?;
        // A watcher reads it between calls (see `watch`): it gives the stream to this call.
        if matches!(*self.standalone.borrow(), Slot::InUse) {
            let handoff = self.watching.borrow_mut().take();
            if let Some(handoff) = handoff {
                handoff.yield_now.cancel();
                let wait = self.transport.sleep(self.config.notification_timeout);
                let _ = first(handoff.returned.cancelled(), wait).await;
            }
        }
        match self.standalone.replace(Slot::InUse) {
            Slot::Open(stream) if stream.session_id == session_id => {
                return Some(Lease::new(&self.standalone, Slot::Open(stream)));
            }
            Slot::InUse => return None,
            Slot::Refused(id) if id == session_id => {
                self.standalone.replace(Slot::Refused(id));
                return None;
            }
            Slot::Open(_) | Slot::Refused(_) | Slot::Closed => {}
        }
        let mut lease = Lease::new(&self.standalone, Slot::Closed);
        let headers = self.stream_get_headers(session);
        let request =
            HttpRequest { method: Method::Get, url: self.config.url.clone(), headers, body: None };
        // Bounded like a notification: a server that never answers the GET delays the call
        // only this long, and then the call goes on without the stream.
        let sent =
            first(self.send(request), self.transport.sleep(self.config.notification_timeout)).await;
        match sent {
            Either::Left(Ok(response)) if (200..300).contains(&response.status) => {
                let content_type = response.header("Content-Type").map(str::to_owned);
                let decoder = ReplyDecoder::for_content_type(
                    content_type.as_deref(),
                    self.config.max_reply_bytes,
                );
                lease.next = match decoder {
                    Ok(decoder) if decoder.is_stream() => {
                        let number = self.streams_opened.get() + 1;
                        self.streams_opened.set(number);
                        Slot::Open(Standalone::new(session_id, response.body, decoder, number))
                    }
                    // Anything but SSE: the server does not offer the stream after all.
                    _ => Slot::Refused(session_id),
                };
            }
            // 405 is how the spec says "no stream here". 409 (another GET of this session is
            // still open), 429 and 5xx may pass: those are tried again at the next call.
            Either::Left(Ok(response)) if !matches!(response.status, 409 | 429 | 500..) => {
                lease.next = Slot::Refused(session_id);
            }
            _ => {}
        }
        Some(lease)
    }

    /// Handles what arrives on the standalone stream until the call it runs beside ends (this
    /// future is then dropped; it never finishes by itself).
    pub(super) async fn read_standalone(
        &self,
        session: &SessionState,
        stream: &mut Standalone<T::Body>,
        handler: &dyn Handler,
    ) -> std::convert::Infallible {
        self.read_standalone_to_end(session, stream, handler).await;
        std::future::pending().await
    }

    /// Handles what arrives on the standalone stream until it ends or breaks.
    pub(super) async fn read_standalone_to_end(
        &self,
        session: &SessionState,
        stream: &mut Standalone<T::Body>,
        handler: &dyn Handler,
    ) {
        while let Some(chunk) = stream.next_chunk().await {
            let Ok(messages) = stream.decoder.feed(chunk) else {
                stream.end();
                break;
            };
            // Responses on this stream answer nothing of ours.
            let messages =
                messages.into_iter().filter(|m| !matches!(m, Message::Response(_))).collect();
            let none = Id::String(String::new());
            let _ = self.handle_messages(session, messages, &none, handler).await;
        }
    }
}
