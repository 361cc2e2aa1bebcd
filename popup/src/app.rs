use gemipanel_browser::{chrome::message, messaging::request_once, worker_status_text};
use gemipanel_core::messages::{Request, Response};
use yew::prelude::*;

use crate::state::{Action, State, WorkerView};

#[function_component]
pub fn App() -> Html {
    let state = use_reducer(State::default);
    {
        let dispatcher = state.dispatcher();
        use_effect_with(state.status_epoch, move |_| {
            wasm_bindgen_futures::spawn_local(async move {
                let action = match request_once(Request::Status).await {
                    Ok(Response::Status(status)) => Action::StatusLoaded(status),
                    Ok(Response::Error { message }) => Action::StatusFailed(message),
                    Ok(other) => Action::StatusFailed(format!("unexpected answer: {other:?}")),
                    Err(err) => Action::StatusFailed(err.to_string()),
                };
                dispatcher.dispatch(action);
            });
        });
    }
    let on_refresh = {
        let dispatcher = state.dispatcher();
        Callback::from(move |_: MouseEvent| dispatcher.dispatch(Action::RefreshStatus))
    };
    let (dot, text) = match &state.worker {
        WorkerView::Loading => ("pending", message("workerConnecting", &[])),
        WorkerView::Ready(status) => ("ok", worker_status_text(status)),
        WorkerView::Failed(err) => ("error", message("workerError", &[err])),
    };
    html! {
        <div class="page popup">
            <header class="topbar">
                <img class="logo" src="icons/icon32.png" alt="" />
                <h1>{ message("popupTitle", &[]) }</h1>
            </header>
            <main class="content">
                <section class="card" aria-labelledby="worker-heading">
                    <h2 id="worker-heading">{ message("workerSection", &[]) }</h2>
                    <p class="status-row" role="status" data-testid="worker-status" data-state={dot}>
                        <span class={classes!("dot", dot)} aria-hidden="true"></span>
                        <span class="status-text">{ text }</span>
                        <button type="button" class="icon-button" onclick={on_refresh}
                            title={message("refreshStatus", &[])}
                            aria-label={message("refreshStatus", &[])}>{ "↻" }</button>
                    </p>
                </section>
            </main>
        </div>
    }
}
