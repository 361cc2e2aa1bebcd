//! A local server's stderr, fetched from the bridge when the person opens it: what a crashed or
//! misconfigured server said is where they look first.

use gemipanel_browser::chrome::{message, word};
use gemipanel_browser::messaging::request_once;
use gemipanel_core::messages::{Request, Response};
use gemipanel_core::settings::ServerId;
use wasm_bindgen_futures::spawn_local;
use web_sys::HtmlDetailsElement;
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct Props {
    pub server_id: ServerId,
}

#[derive(Clone, PartialEq)]
enum Log {
    Closed,
    Loading,
    Shown { text: String, truncated: bool },
    Failed(String),
}

#[function_component]
pub fn ServerLog(props: &Props) -> Html {
    let log = use_state(|| Log::Closed);
    let load = {
        let (log, id) = (log.clone(), props.server_id.clone());
        Callback::from(move |()| {
            log.set(Log::Loading);
            let (log, id) = (log.clone(), id.clone());
            spawn_local(async move {
                log.set(match request_once(Request::ServerLog { server_id: id }).await {
                    Ok(Response::ServerLog { text, truncated, .. }) => {
                        Log::Shown { text, truncated }
                    }
                    Ok(Response::Error { error }) => Log::Failed(word(&error)),
                    Ok(_) => Log::Failed(message("errUnknown", &[])),
                    Err(err) => Log::Failed(err.to_string()),
                });
            });
        })
    };
    let ontoggle = {
        let (log, load) = (log.clone(), load.clone());
        Callback::from(move |e: Event| {
            let open = e.target_dyn_into::<HtmlDetailsElement>().is_some_and(|d| d.open());
            if open && *log == Log::Closed {
                load.emit(());
            }
        })
    };
    html! {
        <details class="server-log" data-testid="server-log" {ontoggle}>
            <summary>{ message("popupServerLog", &[]) }</summary>
            { body(&log) }
            if matches!(*log, Log::Shown { .. } | Log::Failed(_)) {
                <button type="button" class="secondary small" data-testid="server-log-refresh"
                    onclick={load.reform(|_: MouseEvent| ())}>{ message("popupRefresh", &[]) }</button>
            }
        </details>
    }
}

fn body(log: &Log) -> Html {
    match log {
        Log::Closed => Html::default(),
        Log::Loading => {
            html! { <p class="note" aria-busy="true">{ message("popupLoading", &[]) }</p> }
        }
        Log::Failed(error) => html! { <p class="note error" role="alert">{ error }</p> },
        Log::Shown { text, .. } if text.is_empty() => {
            html! { <p class="note">{ message("popupServerLogEmpty", &[]) }</p> }
        }
        Log::Shown { text, truncated } => html! {
            <>
                if *truncated { <p class="note">{ message("popupServerLogTruncated", &[]) }</p> }
                <pre class="log" data-testid="server-log-text">{ text }</pre>
            </>
        },
    }
}
