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
}

impl<B: ResponseBody + 'static> Standalone<B> {
    pub fn new(session_id: String, body: B, decoder: ReplyDecoder) -> Self {
        Standalone { session_id, decoder, read: Some(read_next(body)) }
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
