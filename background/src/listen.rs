//! Change subscriptions of stateless (2026-07-28) servers while a page is open.
//!
//! Such a server can announce a changed tool list only on a `subscriptions/listen` stream. While
//! at least one page holds a port, every ready server that may announce changes gets one, kept
//! open (and reopened with backoff) by core's `keep_listening`; a change refetches the tools and
//! tells the pages, as a change seen during a tool call does; a change of prompts is passed on
//! to the pages (an open `/` menu lists them again). A subscription closes when the last
//! page goes, its server is removed, or its client is replaced (changed settings).
//!
//! Chrome stops an idle worker even under an open panel, which connects again at once. The
//! servers listened to are kept in `chrome.storage.session`, so the next worker takes them up
//! again at its first page ([`resume`]), with a fresh list each: changes made while nobody
//! listened went unannounced.

use std::rc::Rc;

use gemipanel_browser::chrome;
use gemipanel_browser::http::now_ms;
use gemipanel_browser::messaging::{from_js, to_js};
use gemipanel_core::mcp::{CancelToken, ListenEvent, ListenFilter};
use gemipanel_core::messages::Event;
use gemipanel_core::settings::ServerId;

use crate::registry::{self, McpClient};
use crate::worker::{self, Listening};
use crate::{ports, store};

/// Opens and closes subscriptions to match the pages, servers and clients of this moment.
pub fn sync() {
    let pages = !ports::is_empty();
    let clients = if pages { registry::clients() } else { Vec::new() };
    let (stale, listened) = worker::with(|w| {
        let mut open = w.listening.borrow_mut();
        let (keep, stale): (Vec<Listening>, Vec<Listening>) = open.drain(..).partition(|o| {
            clients.iter().any(|(id, client, _)| *id == o.id && Rc::ptr_eq(client, &o.client))
        });
        *open = keep;
        for (id, client, ready) in clients {
            if ready && client.may_announce_changes() && !open.iter().any(|o| o.id == id) {
                open.push(start(id, client));
            }
        }
        let listened: Vec<ServerId> = open.iter().map(|o| o.id.clone()).collect();
        // None listened to while pages are open is no news: a new worker has no clients before
        // it resumes, and a replaced client is not ready yet.
        let keep = if !pages || !listened.is_empty() { Some(listened) } else { None };
        let kept = &mut *w.listened_kept.borrow_mut();
        let news = keep.filter(|keep| kept.as_ref() != Some(keep));
        if news.is_some() {
            kept.clone_from(&news);
        }
        (stale, news)
    });
    drop(stale);
    if let Some(listened) = listened {
        wasm_bindgen_futures::spawn_local(keep_listened(listened));
    }
    // What the pages follow of single resources runs on the same clients.
    crate::resource_watch::sync();
}

/// Where the servers listened to are kept for the next worker.
const LISTENED_KEY: &str = "listened_servers";

async fn keep_listened(listened: Vec<ServerId>) {
    let Ok(value) = to_js(&listened) else { return };
    if let Err(error) = chrome::session_set(LISTENED_KEY, &value).await {
        web_sys::console::warn_1(&format!("the servers listened to are not kept: {error}").into());
    }
}

/// At a page's port: the first time in this worker, listens again to the servers the worker
/// before it listened to, each with its tools fetched again and the pages told.
pub fn resume() {
    if worker::with(|w| w.listen_resumed.replace(true)) {
        return;
    }
    wasm_bindgen_futures::spawn_local(async {
        let Ok(raw) = chrome::session_get(LISTENED_KEY).await else { return };
        let Ok(listened) = from_js::<Vec<ServerId>>(raw) else { return };
        if listened.is_empty() {
            return;
        }
        let Ok(settings) = store::read().await else { return };
        // The page that woke this worker may have gone meanwhile: then nobody is told.
        if ports::is_empty() {
            return;
        }
        for server in listened.iter().filter_map(|id| settings.server(id)) {
            // Ready, its client opens a subscription again (`sync`, at `ClientsChanged`).
            registry::tools_changed(server.clone());
        }
    });
}

fn start(id: ServerId, client: Rc<McpClient>) -> Listening {
    let stop = CancelToken::new();
    let (task_id, task_client, task_stop) = (id.clone(), client.clone(), stop.clone());
    wasm_bindgen_futures::spawn_local(async move {
        let filter = ListenFilter { prompts_list_changed: true, ..ListenFilter::tools() };
        let filter = task_client.listen_filter(&filter);
        let on_event = |event| {
            // After a reopen, changes made while the stream was down went unannounced.
            let reopened = matches!(event, ListenEvent::Reopened(_));
            if reopened || event == ListenEvent::ToolsListChanged {
                refetch(task_id.clone());
            }
            if reopened || event == ListenEvent::PromptsListChanged {
                ports::broadcast(Event::PromptsChanged { server_id: task_id.clone() });
            }
        };
        // It gives up only when the server cannot deliver; its tools then stay fresh by `ttlMs`.
        let _ = task_client.keep_listening(filter, on_event, &task_stop, now_ms).await;
    });
    Listening { id, client, stop }
}

fn refetch(id: ServerId) {
    wasm_bindgen_futures::spawn_local(async move {
        let Ok(settings) = store::read().await else { return };
        if let Some(server) = settings.server(&id) {
            registry::tools_changed(server.clone());
        }
    });
}
