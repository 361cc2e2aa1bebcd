//! The page's link to the worker: the port, the status, the chat driver, and the effects that
//! keep the worker told what the panel needs (the servers' tools early, the resources the chat
//! follows).

use std::rc::Rc;

use gemipanel_browser::port::WorkerPort;
use gemipanel_core::messages::Request;
use yew::prelude::*;

use crate::chat_driver::Driver;
use crate::hooks::{
    use_chat_persistence, use_context_menu_clicks, use_driver, use_model_list, use_page_beside,
    use_page_tool_changes, use_worker_port, use_worker_status,
};
use crate::state::State;

/// Connects to the worker and starts what follows it and the browser; the port and the driver.
#[hook]
pub(super) fn use_worker(state: &UseReducerHandle<State>) -> (Rc<WorkerPort>, Driver) {
    let port = use_worker_port(state.dispatcher());
    use_worker_status(port.clone(), state.status_epoch, state.worker_epoch, state.dispatcher());
    let gemini = state.settings.as_ref().map(|s| s.gemini.clone());
    use_model_list(gemini, state.worker_epoch, state.dispatcher());
    let driver = use_driver(port.clone(), state.dispatcher());
    use_chat_persistence(state.clone());
    use_page_beside(state.dispatcher());
    use_context_menu_clicks(state.dispatcher());
    use_page_tool_changes(state.dispatcher(), state.page_tools.is_some());
    use_tools_prefetch(state, &driver);
    use_followed_resources(state, &port);
    (port, driver)
}

/// The tools are asked for as soon as the settings say which servers are on, so that the first
/// message usually finds them.
#[hook]
fn use_tools_prefetch(state: &State, driver: &Driver) {
    let driver = driver.clone();
    let wanted = (state.settings.clone(), state.enabled_servers());
    use_effect_with(wanted, move |(settings, servers)| {
        if let Some(settings) = settings {
            driver.prefetch_tools(settings, servers);
        }
    });
}

/// The worker follows what the chat sent, told again when the worker started anew. An empty
/// list is sent only to stop following something: a chat that sent no resources (most, and
/// every panel as it opens) costs the worker no request.
#[hook]
fn use_followed_resources(state: &State, port: &Rc<WorkerPort>) {
    let followed = state.followed_resources();
    let port = port.clone();
    // Whether the worker was last told of resources to follow.
    let told_some = use_mut_ref(|| false);
    use_effect_with((followed, state.worker_epoch), move |(resources, _)| {
        let follows_some = !resources.is_empty();
        let was_told_some = told_some.replace(follows_some);
        if follows_some || was_told_some {
            let resources = resources.clone();
            wasm_bindgen_futures::spawn_local(async move {
                let _ = port.request(Request::FollowResources { resources }).await;
            });
        }
    });
}
