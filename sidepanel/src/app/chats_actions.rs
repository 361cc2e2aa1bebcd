//! What the person does to whole chats: start a new one, and, in the history, open, rename,
//! delete, export and import them.

use gemipanel_browser::chrome::message;
use yew::prelude::*;

use super::{depart_apps_in, new_chat_id, Page};
use crate::chats_store;
use crate::components::history_list::ExportAsked;
use crate::state::{Action, State};

/// The history list's callbacks, and the line it shows about the last export or import.
pub(super) struct HistoryActions {
    pub on_open: Callback<String>,
    pub on_rename: Callback<(String, String)>,
    pub on_delete: Callback<Vec<String>>,
    pub on_export: Callback<ExportAsked>,
    pub on_import: Callback<web_sys::File>,
    /// (text, is an error).
    pub status: Option<(String, bool)>,
}

pub(super) fn new_chat(page: &Page) -> Callback<()> {
    let (driver, dispatcher, main) =
        (page.driver.clone(), page.dispatcher.clone(), page.main.clone());
    Callback::from(move |_| {
        driver.stop();
        depart_apps_in(&main);
        driver.reset(Vec::new(), &[]);
        dispatcher
            .dispatch(Action::NewChat { id: new_chat_id(), now_ms: js_sys::Date::now() as u64 });
    })
}

#[hook]
pub(super) fn use_history_actions(page: &Page) -> HistoryActions {
    let history_status = use_state(|| None::<(String, bool)>);
    HistoryActions {
        on_open: open(page),
        on_rename: rename(page),
        on_delete: delete(page),
        on_export: export(&history_status),
        on_import: import(page, &history_status),
        status: (*history_status).clone(),
    }
}

fn open(page: &Page) -> Callback<String> {
    let (driver, dispatcher) = (page.driver.clone(), page.dispatcher.clone());
    Callback::from(move |id: String| {
        let (driver, dispatcher) = (driver.clone(), dispatcher.clone());
        driver.stop();
        wasm_bindgen_futures::spawn_local(async move {
            match chats_store::load(&id).await {
                Ok(saved) => {
                    // (The chat's apps went when the history was shown.)
                    let entries = saved.entries.clone();
                    driver.reset(saved.history.clone(), &saved.call_ids());
                    dispatcher.dispatch(Action::ChatOpened(Box::new(saved)));
                    driver.load_missing_apps(&entries);
                }
                Err(err) => dispatcher.dispatch(Action::Notice(err.to_string())),
            }
        });
    })
}

fn index_update<E: std::fmt::Display>(
    dispatcher: UseReducerDispatcher<State>,
    result: Result<Vec<crate::state::ChatSummary>, E>,
) {
    match result {
        Ok(index) => dispatcher.dispatch(Action::ChatsListed(index)),
        Err(err) => crate::hooks::warn(&format!("updating saved chats: {err}")),
    }
}

fn rename(page: &Page) -> Callback<(String, String)> {
    let dispatcher = page.dispatcher.clone();
    Callback::from(move |(id, title): (String, String)| {
        let dispatcher = dispatcher.clone();
        wasm_bindgen_futures::spawn_local(async move {
            let renamed = chats_store::rename(&id, &title).await;
            if let Ok((_, revision)) = &renamed {
                let (title, revision) = (title.trim().to_owned(), *revision);
                dispatcher.dispatch(Action::ChatRenamed { id, title, revision });
            }
            index_update(dispatcher, renamed.map(|(index, _)| index));
        });
    })
}

fn delete(page: &Page) -> Callback<Vec<String>> {
    let (driver, dispatcher, open) =
        (page.driver.clone(), page.dispatcher.clone(), page.state.chat.id.clone());
    Callback::from(move |ids: Vec<String>| {
        // The open chat among them: it closes, or its next change would save it again.
        if ids.contains(&open) {
            driver.stop();
            driver.reset(Vec::new(), &[]);
            let now_ms = js_sys::Date::now() as u64;
            dispatcher.dispatch(Action::OpenChatDeleted { id: new_chat_id(), now_ms });
        }
        let dispatcher = dispatcher.clone();
        wasm_bindgen_futures::spawn_local(async move {
            let result = match ids.as_slice() {
                [id] => chats_store::delete(id).await,
                _ => chats_store::delete_many(&ids).await,
            };
            index_update(dispatcher, result);
        });
    })
}

fn export(history_status: &UseStateHandle<Option<(String, bool)>>) -> Callback<ExportAsked> {
    let history_status = history_status.clone();
    Callback::from(move |asked: ExportAsked| {
        let history_status = history_status.clone();
        wasm_bindgen_futures::spawn_local(async move {
            let failed = |text: String| Some((message("panelExportFailed", &[&text]), true));
            history_status.set(match crate::chat_files::export(asked).await {
                Ok(()) => None,
                Err(text) => failed(text),
            });
        });
    })
}

fn import(
    page: &Page,
    history_status: &UseStateHandle<Option<(String, bool)>>,
) -> Callback<web_sys::File> {
    let (dispatcher, history_status) = (page.dispatcher.clone(), history_status.clone());
    Callback::from(move |file: web_sys::File| {
        let (dispatcher, history_status) = (dispatcher.clone(), history_status.clone());
        wasm_bindgen_futures::spawn_local(async move {
            match crate::chat_files::import(file).await {
                Ok((index, said)) => {
                    dispatcher.dispatch(Action::ChatsListed(index));
                    history_status.set(Some((said, false)));
                }
                Err(text) => {
                    history_status.set(Some((message("panelImportFailed", &[&text]), true)))
                }
            }
        });
    })
}
