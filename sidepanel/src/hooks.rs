//! Browser effects behind hooks.

use std::rc::Rc;

use gemipanel_core::messages::{Event, Request, Response};
use gemipanel_core::resource_updates::FollowedResource;
use gemipanel_core::settings::GeminiSettings;
use yew::prelude::*;

use gemipanel_browser::early;
use gemipanel_browser::gemini_models::each_model_list;

use crate::chat_driver::Driver;
use crate::chats_store;
use crate::state::{Action, ElicitationCard, Progress, State};
use gemipanel_browser::chrome::word;
use gemipanel_browser::port::WorkerPort;

/// The panel's port to the worker, connected once; worker events become actions.
#[hook]
pub fn use_worker_port(dispatcher: UseReducerDispatcher<State>) -> Rc<WorkerPort> {
    use_memo((), move |_| {
        WorkerPort::connect("sidepanel", move |event| {
            let action = match event {
                Event::WorkerStarted { .. } => Action::WorkerStarted,
                Event::SettingsChanged { settings } => Action::SettingsChanged(Rc::new(settings)),
                // Servers' states are the popup's to show; the panel asks for tools as it
                // needs them, and the worker's lists follow each server's changes.
                Event::ServerStatus { .. } | Event::ToolsChanged { .. } => return,
                Event::PromptsChanged { .. } => Action::PromptsChanged,
                Event::ResourceUpdated { server_id, uri } => {
                    Action::ResourceUpdated(FollowedResource { server_id, uri })
                }
                Event::ToolProgress { call_id, progress, total, message } => Action::ToolProgress {
                    call_id,
                    progress: Progress { progress, total, message },
                },
                Event::Elicitation { call_id, elicitation_id, prompt } => {
                    Action::Elicitation(ElicitationCard {
                        call_id,
                        server_name: None,
                        elicitation_id,
                        prompt,
                        answer: None,
                    })
                }
                // Settings problems are the popup's to show.
                Event::SettingsProblem { .. } => return,
            };
            dispatcher.dispatch(action);
        })
    })
}

/// Fetches the worker's status each time `status_epoch` changes (a (re)connect, a click on
/// refresh, a settings change), then the settings if `worker_epoch` changed too (a (re)connect
/// or a refresh: changes made elsewhere arrive as the worker's events). The status first: it is
/// what shows the panel ready, and the settings' answer is the bigger one to read and draw.
#[hook]
pub fn use_worker_status(
    port: Rc<WorkerPort>,
    status_epoch: u32,
    worker_epoch: u32,
    dispatcher: UseReducerDispatcher<State>,
) {
    let settings_read_for = use_mut_ref(|| None);
    use_effect_with((status_epoch, worker_epoch), move |&(_, worker_epoch)| {
        let read_settings = settings_read_for.replace(Some(worker_epoch)) != Some(worker_epoch);
        wasm_bindgen_futures::spawn_local(async move {
            // On the first run, what the page asked before its module ran (static/early.js).
            let status = match early::take("status").await {
                Some(answer) => Ok(answer),
                None => port.request(Request::Status).await,
            };
            let action = match status {
                Ok(Response::Status(status)) => Action::StatusLoaded(status),
                Ok(Response::Error { error }) => Action::StatusFailed(word(&error)),
                Ok(_) => Action::StatusFailed("unexpected answer".into()),
                Err(err) => Action::StatusFailed(err.to_string()),
            };
            dispatcher.dispatch(action);
            if !read_settings {
                return;
            }
            let settings = match early::take("settings").await {
                Some(answer) => Ok(answer),
                None => port.request(Request::GetSettings).await,
            };
            let settings = match settings {
                Ok(Response::Settings { settings }) => settings,
                Ok(Response::Error { error }) => {
                    return dispatcher.dispatch(Action::SettingsFailed(word(&error)));
                }
                Ok(_) => return,
                Err(err) => return dispatcher.dispatch(Action::SettingsFailed(err.to_string())),
            };
            dispatcher.dispatch(Action::SettingsLoaded(Rc::new(settings)));
        });
    });
}

/// Lists the models of the settings shown: once they are known, on each `epoch`, and again
/// when another window changes the key or the API's address. Without either list (kept or
/// live) the automatic default is the documented fallback.
#[hook]
pub fn use_model_list(
    gemini: Option<GeminiSettings>,
    epoch: u32,
    dispatcher: UseReducerDispatcher<State>,
) {
    let source = gemini.as_ref().map(GeminiSettings::model_source);
    use_effect_with((source, epoch), move |_| {
        if let Some(gemini) = gemini {
            wasm_bindgen_futures::spawn_local(async move {
                each_model_list(&gemini, |listed| {
                    dispatcher.dispatch(Action::ModelsLoaded(listed))
                })
                .await;
            });
        }
    });
}

/// The chat driver, made once; its events become actions.
#[hook]
pub fn use_driver(port: Rc<WorkerPort>, dispatcher: UseReducerDispatcher<State>) -> Driver {
    let driver = use_memo((), move |_| {
        Driver::new((*port).clone(), Callback::from(move |a| dispatcher.dispatch(a)))
    });
    (*driver).clone()
}

/// Loads the history list once, saves the open chat after each turn, and follows what
/// another window's panel saves of the open chat.
#[hook]
pub fn use_chat_persistence(state: UseReducerHandle<State>) {
    let dispatcher = state.dispatcher();
    // The listener outlives renders; it reads the open chat's id from here.
    let open_id = use_mut_ref(String::new);
    open_id.replace(state.chat.id.clone());
    {
        let dispatcher = dispatcher.clone();
        use_effect_with((), move |_| {
            let _ = gemipanel_browser::chrome::on_local_storage_changed(move |key| {
                let dispatcher = dispatcher.clone();
                if chats_store::is_index(key) {
                    // Another window's panel saved, renamed or deleted a chat.
                    wasm_bindgen_futures::spawn_local(async move {
                        if let Ok(index) = chats_store::list().await {
                            dispatcher.dispatch(Action::ChatsListed(index));
                        }
                    });
                    return;
                }
                let id = open_id.borrow().clone();
                if !chats_store::is_key_of(key, &id) {
                    return;
                }
                wasm_bindgen_futures::spawn_local(async move {
                    // This page's own save comes back here too: the index says so without
                    // reading the chat.
                    if chats_store::stored_is_own(&id).await {
                        return;
                    }
                    if let Some(chat) = chats_store::stored(&id).await {
                        if !chats_store::wrote(&chat.id, chat.revision) {
                            dispatcher.dispatch(Action::ChatStored {
                                chat: Box::new(chat),
                                merged: true,
                            });
                        }
                    }
                });
            });
        });
    }
    {
        let dispatcher = dispatcher.clone();
        use_effect_with((), move |_| {
            wasm_bindgen_futures::spawn_local(async move {
                match chats_store::list().await {
                    Ok(index) => dispatcher.dispatch(Action::ChatsListed(index)),
                    Err(err) => warn(&format!("reading saved chats: {err}")),
                }
            });
        });
    }
    // The handle is cheap to clone; the chat is copied only when it is saved.
    let deps = (state.chat.id.clone(), state.chat.save_epoch);
    use_effect_with(deps, move |_| {
        let chat = &state.chat;
        if chat.save_epoch > 0 && !chat.entries.is_empty() {
            let saved = chat.to_saved();
            wasm_bindgen_futures::spawn_local(async move {
                match chats_store::save(saved).await {
                    Ok(saved) => {
                        dispatcher.dispatch(Action::ChatsListed(saved.index));
                        dispatcher.dispatch(Action::ChatStored {
                            chat: Box::new(saved.chat),
                            merged: saved.merged,
                        });
                    }
                    Err(err) => dispatcher.dispatch(Action::Notice(
                        gemipanel_browser::chrome::message("panelChatNotSaved", &[err.message()]),
                    )),
                }
            });
        }
    });
}

pub fn warn(message: &str) {
    web_sys::console::warn_1(&message.into());
}

/// Keeps a scrolling element at its bottom while content grows, unless the person scrolled up
/// to read. `change` is anything that differs when the content changed.
#[hook]
pub fn use_stick_to_bottom(change: (usize, usize)) -> (NodeRef, Callback<yew::Event>) {
    let node = use_node_ref();
    let pinned = use_mut_ref(|| true);
    let on_scroll = {
        let (node, pinned) = (node.clone(), pinned.clone());
        Callback::from(move |_: yew::Event| {
            if let Some(el) = node.cast::<web_sys::Element>() {
                let gap = el.scroll_height() - el.scroll_top() - el.client_height();
                *pinned.borrow_mut() = gap < 48;
            }
        })
    };
    {
        let node = node.clone();
        use_effect_with(change, move |_| {
            if *pinned.borrow() {
                if let Some(el) = node.cast::<web_sys::Element>() {
                    el.set_scroll_top(el.scroll_height());
                }
            }
        });
    }
    (node, on_scroll)
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

/// Key of `chrome.storage.local` saying GemiPanel asked for `tabs` once (it asks no more).
pub const TABS_ASKED_KEY: &str = "page_tabs_asked";

/// The tab beside the chat: read once, then whenever the person switches tabs, a tab
/// navigates or changes its title, or a window gets focus.
#[hook]
pub fn use_page_beside(dispatcher: UseReducerDispatcher<State>) {
    use gemipanel_browser::page;
    use_effect_with((), move |_| {
        let seen = {
            let dispatcher = dispatcher.clone();
            move |changed: Option<i32>| {
                let dispatcher = dispatcher.clone();
                wasm_bindgen_futures::spawn_local(async move {
                    if let Some(id) = changed.filter(|id| *id >= 0) {
                        if let Ok(tab) = page::tab(id).await {
                            dispatcher.dispatch(Action::TabSeen(tab));
                        }
                    }
                    if let Ok(tab) = page::active_tab().await {
                        dispatcher.dispatch(Action::TabSeen(tab));
                    }
                });
            }
        };
        {
            let dispatcher = dispatcher.clone();
            wasm_bindgen_futures::spawn_local(async move {
                dispatcher.dispatch(Action::TabsPermission(page::has_tabs_permission().await));
                let asked = gemipanel_browser::chrome::local_get(TABS_ASKED_KEY).await;
                if asked.ok().and_then(|v| v.as_bool()) == Some(true) {
                    dispatcher.dispatch(Action::TabsAsked);
                }
            });
        }
        seen(None);
        page::watch_tabs(move |id| seen(Some(id)));
    });
}

/// Lists the tools of the page beside the chat for the tools menu.
pub fn list_page_tools(dispatcher: UseReducerDispatcher<State>) {
    use gemipanel_core::page::webmcp::PageTools;
    wasm_bindgen_futures::spawn_local(async move {
        let listed = gemipanel_browser::page::page_tools(None).await;
        let tools = listed.ok().and_then(|a| a.model_context).map(|m| Rc::new(PageTools::read(&m)));
        dispatcher.dispatch(Action::PageToolsListed(tools));
    });
}

/// Keeps the tools menu's list of the page's tools live: a page that registers or removes a
/// tool (WebMCP's `toolchange`) is listed again, once its tools were listed at all.
#[hook]
pub fn use_page_tool_changes(dispatcher: UseReducerDispatcher<State>, listed: bool) {
    let listed_now = use_mut_ref(|| listed);
    *listed_now.borrow_mut() = listed;
    use_effect_with((), move |_| {
        gemipanel_browser::page::watch_page_tools(move |_tab| {
            if *listed_now.borrow() {
                list_page_tools(dispatcher.clone());
            }
        });
    });
}

/// Takes what the context menu left for this window's panel (on opening, and whenever a
/// click adds more): a page turns the chip on for its tab, a selection or link is attached, an
/// image is fetched and attached.
#[hook]
pub fn use_context_menu_clicks(dispatcher: UseReducerDispatcher<State>) {
    use gemipanel_browser::chrome;
    use gemipanel_core::page::context_menu::PENDING_KEY;
    use_effect_with((), move |_| {
        let take = move || {
            let dispatcher = dispatcher.clone();
            wasm_bindgen_futures::spawn_local(async move {
                for pending in take_context_menu_clicks().await {
                    attach_click(&dispatcher, pending).await;
                }
            });
        };
        take();
        let _ = chrome::on_session_storage_changed(move |key| {
            if key == PENDING_KEY {
                take();
            }
        });
    });
}

/// The clicks waiting for this window, removed from storage (the others stay).
async fn take_context_menu_clicks() -> Vec<gemipanel_core::page::context_menu::Pending> {
    use gemipanel_browser::chrome;
    use gemipanel_core::page::context_menu::{take_for_window, PENDING_KEY};
    let Ok(window) = chrome::current_window_id().await else { return Vec::new() };
    // Under the lock the worker keeps clicks with: a click kept meanwhile is not written over.
    let _turn = gemipanel_browser::locks::exclusive(PENDING_KEY).await;
    let stored = chrome::session_get(PENDING_KEY).await.ok().and_then(|v| v.as_string());
    let Some(kept) = stored.and_then(|t| serde_json::from_str(&t).ok()) else { return Vec::new() };
    let (mine, others) = take_for_window(kept, window);
    if mine.is_empty() {
        return mine;
    }
    let rest = others.to_string();
    let _ = chrome::session_set(PENDING_KEY, &rest.into()).await;
    mine
}

async fn attach_click(
    dispatcher: &UseReducerDispatcher<State>,
    pending: gemipanel_core::page::context_menu::Pending,
) {
    use gemipanel_browser::page;
    use gemipanel_core::page::context_menu::{MenuItem, MAX_IMAGE_BYTES};
    match pending.item {
        MenuItem::Page => {
            if let Ok(tab) = page::tab(pending.tab_id).await {
                dispatcher.dispatch(Action::PinTab(tab));
            }
        }
        MenuItem::Image => {
            let fetched = page::fetch_image(&pending.value, MAX_IMAGE_BYTES).await;
            dispatcher.dispatch(Action::Attach(Rc::new(pending.image_part(fetched))));
        }
        MenuItem::Selection | MenuItem::Link => {
            if let Some(part) = pending.part() {
                dispatcher.dispatch(Action::Attach(Rc::new(part)));
            }
        }
    }
}
