//! Settings sync, opted into on this computer (`core::settings::sync`): the servers and the
//! preferences follow the person's Chrome profile to their other computers; keys, tokens and
//! secret values never do.

use gemipanel_browser::chrome::{counted_message, message, word};
use gemipanel_browser::messaging::request_once;
use gemipanel_core::messages::{Request, Response};
use yew::prelude::*;

use super::field::CheckField;

#[derive(Clone, PartialEq)]
enum SyncView {
    Loading,
    Known { enabled: bool, servers: usize },
    Failed(String),
}

fn ask(enabled: Option<bool>, view: UseStateHandle<SyncView>) {
    wasm_bindgen_futures::spawn_local(async move {
        view.set(match request_once(Request::SettingsSync { enabled }).await {
            Ok(Response::SettingsSync { enabled, servers }) => SyncView::Known { enabled, servers },
            Ok(Response::Error { error }) => SyncView::Failed(word(&error)),
            Ok(_) => SyncView::Failed(message("errWorkerUnexpectedAnswer", &[])),
            Err(err) => SyncView::Failed(err.to_string()),
        });
    });
}

#[function_component]
pub fn SyncCard() -> Html {
    let view = use_state(|| SyncView::Loading);
    {
        let view = view.clone();
        use_effect_with((), move |_| ask(None, view));
    }
    let enabled = matches!(*view, SyncView::Known { enabled: true, .. });
    let onchange = {
        let view = view.clone();
        Callback::from(move |on: bool| ask(Some(on), view.clone()))
    };
    let status = match &*view {
        SyncView::Loading => html! {},
        SyncView::Known { enabled: true, servers } => html! {
            <p class="note ok" data-testid="sync-status">
                { counted_message("popupSyncOn", *servers, &[&servers.to_string()]) }</p>
        },
        SyncView::Known { enabled: false, .. } => html! {},
        SyncView::Failed(error) => html! {
            <p class="note error" role="alert" data-testid="sync-status">{ error }</p>
        },
    };
    html! {
        <section class="card" aria-labelledby="sync-heading">
            <h2 id="sync-heading">{ message("popupSyncSection", &[]) }</h2>
            <CheckField id="settings-sync" label={message("popupSyncLabel", &[])}
                checked={enabled} {onchange} hint={message("popupSyncHint", &[])} />
            <div aria-live="polite">{ status }</div>
        </section>
    }
}
