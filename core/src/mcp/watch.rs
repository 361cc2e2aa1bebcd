//! What a handshake-era server says outside any request, heard while an open chat follows one
//! of its resources (the worker's `resource_watch`): its standalone GET stream read between
//! calls, so that `notifications/resources/updated`,
//! `notifications/prompts/list_changed` and the other list changes arrive when they happen
//! rather than during the next tool call.
//!
//! The stream is one per session, and a tool call reads it too (a server may ask that call's
//! questions there, see `standalone`). The watcher holds it only while no call wants it: a call
//! that finds it watched asks for it (`Handoff::yield_now`), the watcher puts it back in the
//! slot without losing a byte (the pending read lives in the stream) and says so
//! (`Handoff::returned`), then waits for the slot to be free again.

use std::time::Duration;

use super::client::{CallHandler, Client};
use super::error::Kind;
use super::standalone::Slot;
use super::transport::{HttpTransport, Timer};
use super::Error;
use crate::backoff::Backoff;
use crate::sync::{first, CancelToken, Either};
use crate::text::Text;

#[derive(Clone, Default)]
pub(crate) struct Handoff {
    pub yield_now: CancelToken,
    pub returned: CancelToken,
}

/// How long the watcher waits for a call to give the stream back before looking again.
const IN_USE_WAIT: Duration = Duration::from_millis(250);
/// Waits before opening the stream again after it ended or the GET failed.
const REOPEN: Backoff = Backoff { first: Duration::from_secs(1), max: Duration::from_secs(60) };

impl<T: HttpTransport + Timer> Client<T>
where
    T::Body: 'static,
{
    /// Reads the session's standalone stream until `stop`, handing what arrives to `handler`
    /// (events of no call: list changes, resource updates). `on_stream` runs each time a stream
    /// opens, first and after it was opened again (a renewed session forgot subscriptions).
    /// Returns `Ok` when stopped, and an error with `is_unsupported()` for sessions that have
    /// no such stream: 2026-07-28 (see `listen`), the HTTP+SSE transport, a server without
    /// sessions or one that refuses the GET.
    pub async fn watch<H: CallHandler>(
        &self,
        handler: &H,
        stop: &CancelToken,
        mut on_stream: impl FnMut(),
    ) -> Result<(), Error> {
        let mut failures = 0u32;
        let mut seen = 0u64;
        loop {
            let session = match first(self.connect(), stop.cancelled()).await {
                Either::Left(session) => session?,
                Either::Right(()) => return Ok(()),
            };
            let Some(session_id) = session
                .session_id
                .clone()
                .filter(|_| !session.is_modern() && !session.sse_transport)
            else {
                return Err(self.unsupported());
            };
            let handoff = Handoff::default();
            *self.watching.borrow_mut() = Some(handoff.clone());
            let lease = match first(self.lease_standalone(&session), stop.cancelled()).await {
                Either::Left(lease) => lease,
                Either::Right(()) => return Ok(()),
            };
            let Some(mut lease) = lease else {
                self.watching.borrow_mut().take();
                if matches!(&*self.standalone.borrow(), Slot::Refused(id) if *id == session_id) {
                    return Err(self.unsupported());
                }
                // A call reads it right now.
                if self.pause(IN_USE_WAIT, stop).await {
                    return Ok(());
                }
                continue;
            };
            let Slot::Open(stream) = &mut lease.next else {
                // The GET failed for now (409, 429, 5xx, the network): try again later.
                drop(lease);
                self.watching.borrow_mut().take();
                failures = failures.saturating_add(1);
                if self.pause(REOPEN.delay(failures - 1), stop).await {
                    return Ok(());
                }
                continue;
            };
            if stream.number != seen {
                seen = stream.number;
                on_stream();
            }
            let reading = self.read_standalone_to_end(&session, stream, handler);
            let outcome =
                first(reading, first(stop.cancelled(), handoff.yield_now.cancelled())).await;
            let ended = stream.is_ended();
            if ended {
                lease.next = Slot::Closed;
            }
            drop(lease);
            handoff.returned.cancel();
            self.watching.borrow_mut().take();
            match outcome {
                Either::Right(Either::Left(())) => return Ok(()),
                // The stream ended: open it again after a while.
                Either::Left(()) => {
                    failures = failures.saturating_add(1);
                    if self.pause(REOPEN.delay(failures - 1), stop).await {
                        return Ok(());
                    }
                }
                // A call took it: wait until it is back.
                Either::Right(Either::Right(())) => {
                    failures = 0;
                    while matches!(&*self.standalone.borrow(), Slot::InUse) {
                        if self.pause(IN_USE_WAIT, stop).await {
                            return Ok(());
                        }
                    }
                }
            }
        }
    }

    /// Sleeps `wait`; true when `stop` fired meanwhile.
    async fn pause(&self, wait: Duration, stop: &CancelToken) -> bool {
        matches!(first(self.transport.sleep(wait), stop.cancelled()).await, Either::Right(()))
    }

    fn unsupported(&self) -> Error {
        self.error(Kind::Unsupported(Text::new("errMcpNoWatch"))).with_method("GET")
    }
}
