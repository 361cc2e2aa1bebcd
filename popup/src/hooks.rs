//! Browser effects the popup keeps while it is open.

use gemipanel_browser::chrome;
use gemipanel_browser::port::WorkerPort;
use gemipanel_core::messages::Event;
use gemipanel_core::settings::GeminiSettings;
use yew::prelude::*;

use crate::effects::{self, Dispatch};
use crate::form::{FormEdit, ServerForm, ServerKind};
use crate::state::{Action, State};

/// The name the popup's port carries, so the worker can tell pages apart.
const PORT_NAME: &str = "popup";

/// Loads what the popup shows, reloads the status and server list when asked, and follows the
/// worker's events (settings changed elsewhere, server status) over a port while open.
#[hook]
pub fn use_worker(state: &UseReducerHandle<State>) {
    let dispatch = state.dispatcher();
    use_effect_with(state.status_epoch, {
        let dispatch = dispatch.clone();
        move |_| effects::load_status(dispatch)
    });
    use_effect_with(state.servers_epoch, {
        let dispatch = dispatch.clone();
        move |_| effects::load_servers(dispatch)
    });
    // The models follow the document shown: its first answer, or a change told on the port.
    let gemini = state.settings.as_ref().map(|s| s.gemini.clone());
    use_effect_with(gemini.as_ref().map(GeminiSettings::model_source), {
        let dispatch = dispatch.clone();
        move |_| {
            if let Some(gemini) = gemini {
                effects::load_models(dispatch, gemini);
            }
        }
    });
    use_effect_with((), move |_| {
        effects::load_settings(dispatch.clone());
        effects::load_local_permission(dispatch.clone());
        let port = WorkerPort::connect(PORT_NAME, move |event| on_event(&dispatch, event));
        // The port lives as long as the popup; dropping it at unmount is all the cleanup needed.
        move || drop(port)
    });
}

fn on_event(dispatch: &Dispatch, event: Event) {
    let action = match event {
        Event::SettingsChanged { settings } => Action::SettingsChanged(settings),
        Event::ServerStatus { server_id, status } => Action::ServerStatus { id: server_id, status },
        Event::ToolsChanged { .. } => Action::RefreshServers,
        Event::SettingsProblem { problem } => Action::SettingsProblem(problem),
        // A restarted worker: its status and the servers' states start over.
        Event::WorkerStarted { .. } => {
            dispatch.dispatch(Action::RefreshServers);
            Action::RefreshStatus
        }
        // Tool calls and whatever events are added later concern the side panel only.
        _ => return,
    };
    dispatch.dispatch(action);
}

/// The id of the popup's window, fetched ahead so "Open chat" can call `sidePanel.open`
/// synchronously inside the click (an `await` first would lose the user gesture).
#[hook]
pub fn use_window_id() -> Option<i32> {
    let id = use_state(|| None);
    {
        let id = id.clone();
        use_effect_with((), move |_| {
            wasm_bindgen_futures::spawn_local(async move {
                if let Ok(window) = chrome::current_window_id().await {
                    id.set(Some(window));
                }
            });
        });
    }
    *id
}

/// "Open chat": a click opens this window's side panel (called inside the click, as Chrome
/// requires a user gesture); with `then_close` the page closes once it opened (the popup).
/// The error, when it could not.
#[hook]
pub fn use_open_chat(then_close: bool) -> (Callback<MouseEvent>, Option<String>) {
    let window_id = use_window_id();
    let error = use_state(|| None::<String>);
    let onclick = {
        let error = error.clone();
        Callback::from(move |_: MouseEvent| {
            let Some(window_id) = window_id else {
                return error
                    .set(Some(gemipanel_browser::chrome::message("popupOpenChatNoWindow", &[])));
            };
            let opened = chrome::open_side_panel(window_id);
            let error = error.clone();
            wasm_bindgen_futures::spawn_local(async move {
                match opened.await {
                    Ok(()) => {
                        error.set(None);
                        if let Some(window) = web_sys::window().filter(|_| then_close) {
                            let _ = window.close();
                        }
                    }
                    Err(err) => error.set(Some(err.to_string())),
                }
            });
        })
    };
    (onclick, (*error).clone())
}

/// The keyboard shortcut set for the manifest command `name`, once known.
#[hook]
pub fn use_shortcut(name: &'static str) -> Option<String> {
    use_shortcut_read(name).flatten()
}

/// The keyboard shortcut for the manifest command `name`: `None` until read, then whether
/// one is set.
#[hook]
pub fn use_shortcut_read(name: &'static str) -> Option<Option<String>> {
    let shortcut = use_state(|| None);
    {
        let shortcut = shortcut.clone();
        use_effect_with((), move |_| {
            wasm_bindgen_futures::spawn_local(async move {
                shortcut.set(Some(chrome::command_shortcut(name).await));
            });
        });
    }
    (*shortcut).clone()
}

/// A `<select>` showing `value`: its options' `selected` attributes stop counting once the person
/// picked an option, so the value is set on the element after each render that changes it.
#[hook]
pub fn use_select_value(value: String) -> NodeRef {
    let node = use_node_ref();
    {
        let node = node.clone();
        use_effect_with(value, move |value| {
            if let Some(select) = node.cast::<web_sys::HtmlSelectElement>() {
                select.set_value(value);
            }
        });
    }
    node
}

/// How long the command must stay as typed before the bridge is asked for its line.
const PREVIEW_AFTER: std::time::Duration = std::time::Duration::from_millis(300);

/// Asks the bridge how it would run the local command of `form` once the person stops typing,
/// reporting its line as [`FormEdit::BridgeLine`]: the preview then shows `$VAR`s expanded and
/// what the server inherits from the bridge's environment, and saving allows that line.
#[hook]
pub fn use_bridge_line(form: &ServerForm, on_edit: &Callback<FormEdit>) {
    let local = form
        .local_command()
        .ok()
        .filter(|local| form.kind == ServerKind::Local && !local.command.is_empty());
    let asked = local
        .clone()
        .filter(|local| !form.bridge_line.as_ref().is_some_and(|(shown, _)| shown == local));
    use_effect_with((asked, form.editing.clone()), {
        let on_edit = on_edit.clone();
        move |(asked, editing): &(Option<gemipanel_core::settings::LocalCommand>, _)| {
            let current = std::rc::Rc::new(std::cell::Cell::new(true));
            if let Some(local) = asked.clone() {
                let (still, editing) = (current.clone(), editing.clone());
                wasm_bindgen_futures::spawn_local(async move {
                    gemipanel_browser::timers::sleep(PREVIEW_AFTER).await;
                    if still.get() {
                        effects::preview_command(on_edit, editing, local);
                    }
                });
            }
            move || current.set(false)
        }
    });
}
