use gemipanel_browser::chrome::message;
use yew::prelude::*;

use crate::chat_driver::Decision;
use crate::state::{ToolCard, ToolStatus};

#[derive(Properties, PartialEq)]
pub struct Props {
    pub card: ToolCard,
    pub on_decide: Callback<(String, Decision)>,
}

/// One tool call: collapsible details, and the confirmation buttons while it waits.
#[function_component]
pub fn ToolCardView(props: &Props) -> Html {
    let card = &props.card;
    let (state, label) = match &card.status {
        ToolStatus::Confirm => ("confirm", message("panelToolConfirm", &[])),
        ToolStatus::Running => ("running", message("panelToolRunning", &[])),
        ToolStatus::Done => ("done", message("panelToolDone", &[])),
        ToolStatus::Failed { .. } => ("failed", message("panelToolFailed", &[])),
        ToolStatus::Denied => ("denied", message("panelToolDenied", &[])),
        ToolStatus::Cancelled => ("cancelled", message("panelToolCancelled", &[])),
    };
    let decide = |decision: Decision| {
        let id = card.call_id.clone();
        props.on_decide.reform(move |_: MouseEvent| (id.clone(), decision))
    };
    let duration = card.duration_ms.map(|ms| format!("{}.{} s", ms / 1000, ms % 1000 / 100));
    let progress = card.progress.as_ref().filter(|_| card.status == ToolStatus::Running).map(|p| {
        let value = match p.total {
            Some(total) => format!("{} / {}", number(p.progress), number(total)),
            None => number(p.progress),
        };
        // A bar only when the server gave a total: without one the end is unknown.
        let bar = p.total.map(|total| {
            html! { <progress max={number(total)} value={number(p.progress)}></progress> }
        });
        html! {
            <div class="progress">
                { for bar }
                <span class="progress-text">{ value }{ " " }{ p.message.clone().unwrap_or_default() }</span>
            </div>
        }
    });
    let hint = match (card.read_only_hint, card.trusted_server) {
        (Some(true), true) => Some(message("panelReadOnly", &[])),
        (Some(true), false) => Some(message("panelReadOnlyUntrusted", &[])),
        _ => None,
    };
    html! {
        <details class={classes!("tool-card", state)} open={card.status == ToolStatus::Confirm}
            data-testid="tool-card" data-state={state}>
            <summary>
                <span class="tool-name">{ &card.tool }</span>
                <span class="server">{ &card.server_name }</span>
                <span class="badge">{ label }</span>
                if let Some(d) = duration { <span class="duration">{ d }</span> }
            </summary>
            if let Some(hint) = hint { <p class="hint">{ hint }</p> }
            <h4>{ message("panelArguments", &[]) }</h4>
            <pre class="args">{ &card.args }</pre>
            { for progress }
            if let Some(result) = &card.result {
                <h4>{ message("panelResult", &[]) }</h4>
                <pre class="result">{ result }</pre>
            }
            if let ToolStatus::Failed { message } = &card.status {
                <pre class="result error">{ message }</pre>
            }
            if card.status == ToolStatus::Confirm {
                <div class="confirm">
                    <button class="primary" onclick={decide(Decision::AllowOnce)}>{ message("panelAllowOnce", &[]) }</button>
                    <button onclick={decide(Decision::AlwaysTool)}>{ message("panelAlwaysTool", &[]) }</button>
                    <button onclick={decide(Decision::AlwaysServer)}>{ message("panelAlwaysServer", &[]) }</button>
                    <button class="danger" onclick={decide(Decision::Deny)}>{ message("panelDeny", &[]) }</button>
                </div>
            }
        </details>
    }
}

/// A progress number with at most two decimals, without float formatting (it costs ~10 KB of
/// wasm and the numbers are small).
pub fn number(value: f64) -> String {
    if !value.is_finite() || value.abs() >= 1e12 {
        return "?".into();
    }
    let hundredths = (value * 100.0).round() as i64;
    let (whole, frac) = (hundredths / 100, (hundredths % 100).abs());
    let sign = if hundredths < 0 && whole == 0 { "-" } else { "" };
    match frac {
        0 => format!("{sign}{whole}"),
        f if f % 10 == 0 => format!("{sign}{whole}.{}", f / 10),
        f => format!("{sign}{whole}.{f:02}"),
    }
}

#[cfg(test)]
mod tests {
    use super::number;

    #[test]
    fn numbers_keep_up_to_two_decimals() {
        let cases = [
            (3.0, "3"),
            (2.5, "2.5"),
            (0.125, "0.13"),
            (-0.5, "-0.5"),
            (-2.25, "-2.25"),
            (f64::NAN, "?"),
        ];
        for (value, text) in cases {
            assert_eq!(number(value), text, "{value}");
        }
    }
}
