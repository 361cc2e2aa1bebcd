use gemipanel_browser::{chrome::message, worker_status_text};
use gemipanel_core::messages::WorkerStatus;
use yew::prelude::*;

use crate::state::WorkerView;

#[derive(Properties, PartialEq)]
pub struct Props {
    pub worker: WorkerView,
    pub on_refresh: Callback<()>,
}

fn now_ms() -> u64 {
    js_sys::Date::now() as u64
}

/// The worker's health, one line at the bottom of the panel. Its uptime goes on between the
/// worker's answers (a new worker answers anew: the panel connects again at once).
#[function_component]
pub fn StatusBar(props: &Props) -> Html {
    let now = use_state(now_ms);
    let received = *use_memo(props.worker.clone(), |_| now_ms());
    let status = match &props.worker {
        WorkerView::Ready(status) => Some(status.aged(now.saturating_sub(received))),
        _ => None,
    };
    {
        // One tick each time the figure shown changes: a second, then a minute, then an hour.
        let now = now.clone();
        let wait = status.as_ref().map(WorkerStatus::uptime_changes_in_ms);
        use_effect_with((wait, *now), move |(wait, _)| {
            let timer = wait.map(|ms| {
                let ms = ms.clamp(50, 60 * 60 * 1000) as u32;
                gloo_timers::callback::Timeout::new(ms, move || now.set(now_ms()))
            });
            move || drop(timer)
        });
    }
    let (dot, text) = match (&props.worker, &status) {
        (WorkerView::Ready(_), Some(status)) => ("ok", worker_status_text(status)),
        (WorkerView::Failed(err), _) => ("error", message("workerError", &[err])),
        _ => ("pending", message("workerConnecting", &[])),
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
