//! How full the model's context window is, above the input; from 90 % an offer to go on in a
//! new chat that starts from a summary the model writes.

use gemipanel_browser::chrome::{message, word};
use gemipanel_core::gemini::ContextMeter;
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct Props {
    /// `None` while the model's window or the chat's size is unknown.
    pub meter: Option<ContextMeter>,
    pub busy: bool,
    /// The model is writing the summary.
    pub summarizing: bool,
    pub on_summarize: Callback<()>,
}

#[function_component]
pub fn ContextMeterView(props: &Props) -> Html {
    if props.summarizing {
        return html! {
            <div class="context-offer" role="status" data-testid="summarizing">
                <span class="typing" aria-hidden="true"></span>
                <p>{ message("panelSummarizing", &[]) }</p>
            </div>
        };
    }
    let Some(meter) = props.meter.filter(|m| m.used > 0) else { return html! {} };
    let percent = meter.percent();
    let detail = word(&meter.text());
    let full = meter.is_nearly_full();
    let offer = full.then(|| {
        let onclick = props.on_summarize.reform(|_: MouseEvent| ());
        html! {
            <div class="context-offer" role="alert" data-testid="context-offer">
                <p>{ message("panelContextFull", &[&percent.to_string()]) }</p>
                <button type="button" class="primary" {onclick} disabled={props.busy}
                    data-testid="summarize">{ message("panelSummarize", &[]) }</button>
            </div>
        }
    });
    html! {
        <>
            { for offer }
            <div class={classes!("context-meter", full.then_some("full"))} data-testid="context-meter"
                title={detail.clone()} data-percent={percent.to_string()}>
                <span class="label">{ message("panelContext", &[]) }</span>
                <meter min="0" max="100" low="70" high="90" optimum="0" value={percent.to_string()}
                    aria-label={detail}></meter>
                <span class="percent">{ format!("{percent} %") }</span>
            </div>
        </>
    }
}
