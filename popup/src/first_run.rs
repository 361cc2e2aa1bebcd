//! The first-run progress (`core::first_run::Progress`: steps skipped, the popup's list
//! dismissed) as kept in `chrome.storage.local`, for the welcome page and the popup's Getting
//! started card. Both are the popup crate, its only writers.

use gemipanel_browser::chrome;
use gemipanel_core::first_run::{Progress, STORAGE_KEY};
use yew::prelude::*;

/// The stored progress once read (`None` before), and a callback that keeps a new one.
#[hook]
pub fn use_first_run() -> (Option<Progress>, Callback<Progress>) {
    let progress = use_state(|| None::<Progress>);
    {
        let progress = progress.clone();
        use_effect_with((), move |_| {
            wasm_bindgen_futures::spawn_local(async move {
                let stored = chrome::local_get(STORAGE_KEY).await.ok().and_then(|v| v.as_string());
                progress.set(Some(Progress::from_stored(stored.as_deref())));
            });
        });
    }
    let keep = {
        let progress = progress.clone();
        Callback::from(move |next: Progress| {
            let text = next.to_stored();
            progress.set(Some(next));
            wasm_bindgen_futures::spawn_local(async move {
                if let Err(err) = chrome::local_set(STORAGE_KEY, &text.into()).await {
                    web_sys::console::warn_1(&format!("GemiPanel: {err}").into());
                }
            });
        })
    };
    ((*progress).clone(), keep)
}

/// Opens a page in a new tab: the welcome page, or Chrome's shortcuts page.
pub fn open_tab(url: &'static str) {
    wasm_bindgen_futures::spawn_local(async move {
        if let Err(err) = chrome::open_tab(url).await {
            web_sys::console::warn_1(&format!("GemiPanel: {err}").into());
        }
    });
}
