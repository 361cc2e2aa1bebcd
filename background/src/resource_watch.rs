//! Updates of the resources the open chats sent (`core::resource_updates`).
//!
//! Each side panel says what its open chat follows (`Request::FollowResources`); the worker
//! follows the union, one task per server, on servers whose capabilities say
//! `resources.subscribe`: a handshake-era session gets `resources/subscribe` for each URI and
//! its standalone GET stream read between calls (core's `watch`; the subscriptions again each
//! time a stream opens, since a renewed session forgot them); a 2026-07-28 server gets a
//! `subscriptions/listen` stream of its own with `resourceSubscriptions` (beside `listen`'s
//! stream for list changes: the specification allows several). A changed list restarts its
//! server's task, and what no open chat follows any more is unsubscribed. Updates go to every
//! page as `Event::ResourceUpdated`; each panel marks only what its chat follows.

use std::cell::RefCell;
use std::rc::Rc;

use gemipanel_browser::chrome::Port;
use gemipanel_browser::http::now_ms;
use gemipanel_core::mcp::{CancelToken, ListenEvent, ListenFilter};
use gemipanel_core::messages::{Event, Response};
use gemipanel_core::resource_updates::{plan, Demand, FollowedResource};
use gemipanel_core::settings::ServerId;
use gemipanel_core::sync::{first, Either};

use crate::calls::PageHandler;
use crate::registry::{self, McpClient};
use crate::worker::{self, Following, Page};
use crate::{ports, store};

fn demand<R>(f: impl FnOnce(&RefCell<Demand<Page>>) -> R) -> R {
    worker::with(|w| f(&w.followed))
}

fn tasks<R>(f: impl FnOnce(&RefCell<Vec<Following>>) -> R) -> R {
    worker::with(|w| f(&w.following))
}

/// `Request::FollowResources` from the page holding `port` (a one-shot message has none: it
/// follows nothing, there being no page to tell).
pub fn follow(port: Option<Port>, resources: Vec<FollowedResource>) -> Response {
    if let Some(port) = port {
        demand(|d| d.borrow_mut().set(Page(port), resources));
        sync();
    }
    Response::Ok
}

/// A page went: what only it followed is unsubscribed.
pub fn port_closed(port: &Port) {
    demand(|d| d.borrow_mut().remove(&Page(port.clone())));
    sync();
}

/// Starts and stops the servers' tasks to match what the pages follow and the clients of this
/// moment.
pub fn sync() {
    let wanted = demand(|d| d.borrow().by_server());
    let clients = registry::clients();
    let replaced = |held: &Following| {
        let current = clients.iter().find(|(id, _, _)| *id == held.id).map(|(_, c, _)| c);
        match (&*held.client.borrow(), current) {
            (Some(ran), Some(current)) => !Rc::ptr_eq(ran, current),
            // The client was dropped (the server changed or went).
            (Some(_), None) => true,
            (None, _) => false,
        }
    };
    let (stale, start) = tasks(|held| {
        let mut held = held.borrow_mut();
        // A task on a replaced client counts as not held: it stops, and starts on the new one.
        let (replaced, kept): (Vec<Following>, Vec<Following>) = held.drain(..).partition(replaced);
        let now: Vec<(ServerId, Vec<String>)> =
            kept.iter().map(|h| (h.id.clone(), h.uris.clone())).collect();
        let step = plan(&now, &wanted);
        let (stopped, kept): (Vec<Following>, Vec<Following>) =
            kept.into_iter().partition(|h| step.stop.contains(&h.id));
        *held = kept;
        let unsubscribe: Vec<(Rc<McpClient>, Vec<String>)> = step
            .unsubscribe
            .iter()
            .filter_map(|(id, uris)| {
                let task = stopped.iter().find(|h| h.id == *id)?;
                let client = task.client.borrow().clone()?;
                Some((client, uris.clone()))
            })
            .collect();
        let mut stale = replaced;
        stale.extend(stopped);
        (stale, (step.start, unsubscribe))
    });
    let (starts, unsubscribe) = start;
    drop(stale);
    for (client, uris) in unsubscribe {
        wasm_bindgen_futures::spawn_local(async move {
            if !client.session().is_some_and(|s| s.is_modern()) {
                for uri in uris {
                    // Best effort: a session that ended forgot it anyway.
                    let _ = client.unsubscribe_resource(&uri).await;
                }
            }
        });
    }
    for (id, uris) in starts {
        let held = Following {
            id: id.clone(),
            uris: uris.clone(),
            client: Rc::new(RefCell::new(None)),
            stop: CancelToken::new(),
        };
        let (client_slot, stop) = (held.client.clone(), held.stop.clone());
        tasks(|h| h.borrow_mut().push(held));
        wasm_bindgen_futures::spawn_local(run(id, uris, client_slot, stop));
    }
}

/// Follows `uris` of server `id` until `stop`.
async fn run(
    id: ServerId,
    uris: Vec<String>,
    client_slot: Rc<RefCell<Option<Rc<McpClient>>>>,
    stop: CancelToken,
) {
    let Ok(settings) = store::read().await else { return };
    let Some(server) = settings.server(&id).cloned() else { return };
    let client = registry::client(&server).await;
    if stop.is_cancelled() {
        return;
    }
    *client_slot.borrow_mut() = Some(client.clone());
    let session = match first(client.connect(), stop.cancelled()).await {
        Either::Left(Ok(session)) => session,
        _ => return,
    };
    let updated = |uri: String| {
        ports::broadcast(Event::ResourceUpdated { server_id: id.clone(), uri });
    };
    if session.is_modern() {
        let wanted = ListenFilter { resource_subscriptions: uris, ..ListenFilter::default() };
        let filter = client.listen_filter(&wanted);
        if filter.is_empty() {
            return;
        }
        let on_event = |event| {
            if let ListenEvent::ResourceUpdated(uri) = event {
                updated(uri);
            }
        };
        let _ = client.keep_listening(filter, on_event, &stop, now_ms).await;
        return;
    }
    if !client.offers_resource_updates() {
        return;
    }
    // Updates arrive on the session's GET stream (tool calls meanwhile pass them on through
    // their own handler, `calls::PageHandler`, to the same event).
    let handler = PageHandler { call_id: String::new(), port: None, server: &server };
    let subscribe_all = || {
        let (client, uris, stop) = (client.clone(), uris.clone(), stop.clone());
        wasm_bindgen_futures::spawn_local(async move {
            for uri in uris {
                if stop.is_cancelled() {
                    return;
                }
                let _ = client.subscribe_resource(&uri).await;
            }
        });
    };
    let _ = client.watch(&handler, &stop, subscribe_all).await;
}
