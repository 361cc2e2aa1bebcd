//! Change subscriptions of stateless (2026-07-28) servers while a page is open.
//!
//! Such a server can announce a changed tool list only on a `subscriptions/listen` stream. While
//! at least one page holds a port, every ready server that may announce changes gets one, kept
//! open (and reopened with backoff) by core's `keep_listening`; a change refetches the tools and
//! tells the pages, as a change seen during a tool call does; a change of prompts is passed on
//! to the pages (an open `/` menu lists them again). A subscription closes when the last
//! page goes, its server is removed, or its client is replaced (changed settings).

use std::rc::Rc;

use gemipanel_browser::http::now_ms;
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
    let stale = worker::with(|w| {
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
        stale
    });
    drop(stale);
    // What the pages follow of single resources runs on the same clients.
    crate::resource_watch::sync();
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
