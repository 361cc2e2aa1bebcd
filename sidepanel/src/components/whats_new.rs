//! The changelog notice: after an update, one line of what is new in the version installed
//! (`core::whats_new`, kept by the worker's `onInstalled`), until the person dismisses it;
//! dismissed, it is written back so it stays away in every panel.

use gemipanel_browser::chrome::{self, message, word};
use gemipanel_core::whats_new::{Notice, STORAGE_KEY};
use yew::prelude::*;

#[function_component]
pub fn WhatsNew() -> Html {
    let notice = use_state(|| None::<Notice>);
    {
        let notice = notice.clone();
        use_effect_with((), move |_| {
            wasm_bindgen_futures::spawn_local(async move {
                let stored = chrome::local_get(STORAGE_KEY).await.ok().and_then(|v| v.as_string());
                notice.set(Notice::from_stored(stored.as_deref()));
            });
        });
    }
    let Some(line) = notice.as_ref().and_then(Notice::line) else { return html! {} };
    let onclick = {
        let notice = notice.clone();
        Callback::from(move |_: MouseEvent| {
            let Some(mut dismissed) = (*notice).clone() else { return };
            dismissed.dismiss();
            let text = dismissed.to_stored();
            notice.set(Some(dismissed));
            wasm_bindgen_futures::spawn_local(async move {
                if let Err(err) = chrome::local_set(STORAGE_KEY, &text.into()).await {
                    web_sys::console::warn_1(&format!("GemiPanel: {err}").into());
                }
            });
        })
    };
    let dismiss = message("whatsNewDismiss", &[]);
    html! {
        <div class="whats-new" role="status" data-testid="whats-new">
            <span class="whats-new-mark" aria-hidden="true">{ "✦" }</span>
            <p>{ word(&line) }</p>
            <button type="button" class="icon-button" data-testid="whats-new-dismiss"
                title={dismiss.clone()} aria-label={dismiss} {onclick}>{ "×" }</button>
        </div>
    }
}
