use gemipanel_browser::{chrome::message, worker_status_text};
use yew::prelude::*;

use crate::state::WorkerView;

#[derive(Properties, PartialEq)]
pub struct Props {
    pub worker: WorkerView,
    pub on_refresh: Callback<()>,
}

/// The worker's health, one line at the bottom of the panel.
#[function_component]
pub fn StatusBar(props: &Props) -> Html {
    let (dot, text) = match &props.worker {
        WorkerView::Connecting => ("pending", message("workerConnecting", &[])),
        WorkerView::Ready(status) => ("ok", worker_status_text(status)),
        WorkerView::Failed(err) => ("error", message("workerError", &[err])),
    };
    let on_click = props.on_refresh.reform(|_: MouseEvent| ());
    html! {
        <footer class="statusbar" role="status" data-testid="worker-status" data-state={dot}>
            <span class={classes!("dot", dot)} aria-hidden="true"></span>
            <span class="status-text">{ text }</span>
            <button type="button" class="icon-button" onclick={on_click}
                title={message("refreshStatus", &[])} aria-label={message("refreshStatus", &[])}>
                { "↻" }
            </button>
        </footer>
    }
}
