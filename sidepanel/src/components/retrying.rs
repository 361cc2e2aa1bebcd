//! A request that failed and goes out again by itself: the wait counting down, the API's
//! words, and a way not to wait.

use gemipanel_browser::chrome::message;
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct Props {
    pub seconds: u64,
    pub message: AttrValue,
    /// When the retry goes out (ms since the epoch); 0 in chats saved before the countdown.
    pub until_ms: u64,
    pub retry: u32,
    pub max: u32,
    /// This is the wait the chat is in now.
    pub live: bool,
    pub on_retry_now: Callback<()>,
}

fn now_ms() -> u64 {
    js_sys::Date::now() as u64
}

#[function_component]
pub fn RetryingView(props: &Props) -> Html {
    let now = use_state(now_ms);
    let remaining_ms = props.until_ms.saturating_sub(*now);
    let counting = props.live && remaining_ms > 0;
    {
        // One tick a second while counting down; none once the wait is over.
        let now = now.clone();
        use_effect_with((counting, *now), move |(counting, _)| {
            let timer = counting.then(|| {
                let delay = 1000 - (now_ms() % 1000) as u32;
                gloo_timers::callback::Timeout::new(delay.max(50), move || now.set(now_ms()))
            });
            move || drop(timer)
        });
    }
    let seconds = remaining_ms.div_ceil(1000).to_string();
    let (max, retry) = (props.max.to_string(), props.retry.to_string());
    let headline = match (counting, props.max) {
        (true, 0) => message("panelRetrying", &[&seconds]),
        (true, _) => message("panelRetryingAttempt", &[&seconds, &retry, &max]),
        (false, _) => message("panelRetried", &[&props.seconds.to_string()]),
    };
    let retry_now = counting.then(|| {
        let onclick = props.on_retry_now.reform(|_: MouseEvent| ());
        html! {
            <button type="button" class="retry-now" {onclick} data-testid="retry-now">
                { message("panelRetryNow", &[]) }
            </button>
        }
    });
    html! {
        <div class={classes!("notice", "retrying", counting.then_some("counting"))}
            data-testid="retrying" data-seconds={if counting { seconds.clone() } else { String::new() }}>
            <div class="retry-line">
                <strong role="timer" aria-live="off">{ headline }</strong>
                { for retry_now }
            </div>
            <span class="detail">{ props.message.clone() }</span>
        </div>
    }
}
