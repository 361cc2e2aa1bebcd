//! The chat's activity: every tool call made for it (who asked, the arguments, what came
//! back, how long it took) and what left the browser with its messages besides the words.
//! Newest first; Escape or Back returns to the chat.

use std::rc::Rc;

use gemipanel_browser::chrome::message;
use gemipanel_core::chats::activity::{Activity, Asker, Outcome, SentActivity, ToolActivity};
use yew::prelude::*;

use super::transcript_view::sent_label;

#[derive(Properties, PartialEq)]
pub struct Props {
    pub activity: Rc<Vec<Activity>>,
    pub on_close: Callback<()>,
}

#[function_component]
pub fn ActivityView(props: &Props) -> Html {
    let close = props.on_close.reform(|_: MouseEvent| ());
    let onkeydown = {
        let on_close = props.on_close.clone();
        Callback::from(move |e: KeyboardEvent| {
            if e.key() == "Escape" {
                e.prevent_default();
                on_close.emit(());
            }
        })
    };
    let back = use_node_ref();
    {
        // Focus moves into the view it opened, so that Escape and Tab act here.
        let back = back.clone();
        use_effect_with((), move |_| {
            if let Some(button) = back.cast::<web_sys::HtmlElement>() {
                let _ = button.focus();
            }
        });
    }
    let rows = props.activity.iter().rev().map(|entry| match entry {
        Activity::Tool(call) => tool_row(call),
        Activity::Sent(sent) => sent_row(sent),
    });
    html! {
        <section class="activity" data-testid="activity" {onkeydown}
            aria-labelledby="activity-title">
            <header class="activity-head">
                <h2 id="activity-title">{ message("panelActivity", &[]) }</h2>
                <button type="button" ref={back} onclick={close} data-testid="activity-close">
                    { message("panelBackToChat", &[]) }</button>
            </header>
            <p class="hint">{ message("panelActivityHint", &[]) }</p>
            if props.activity.is_empty() {
                <p class="hint" data-testid="activity-empty">{ message("panelActivityEmpty", &[]) }</p>
            } else {
                <ol class="activity-list">{ for rows }</ol>
            }
        </section>
    }
}

fn tool_row(call: &ToolActivity) -> Html {
    let asker = match &call.asker {
        Asker::Model => message("panelAskedByModel", &[]),
        Asker::App { tool } => message("panelAskedByApp", &[tool]),
        Asker::Person => message("panelAskedByYou", &[]),
    };
    let (outcome, state) = match call.outcome {
        Outcome::Done => (message("panelActivityDone", &[]), "done"),
        Outcome::Failed => (message("panelActivityFailed", &[]), "failed"),
        Outcome::Denied => (message("panelActivityDenied", &[]), "denied"),
        Outcome::Cancelled => (message("panelActivityCancelled", &[]), "cancelled"),
    };
    let size = call.result_bytes.map(size_words);
    let took = call.duration_ms.map(|ms| message("panelActivityTook", &[&ms.to_string()]));
    let facts = [Some(outcome), size, took].into_iter().flatten().collect::<Vec<_>>().join(" · ");
    html! {
        <li class="activity-row" data-kind="tool" data-state={state}
            data-asker={asker_name(&call.asker)}>
            <div class="activity-line">
                <time>{ clock(call.at_ms) }</time>
                <strong>{ &call.tool }</strong>
                <span class="hint">{ message("panelActivityOn", &[&call.server]) }</span>
            </div>
            <div class="activity-line hint">
                <span data-testid="activity-asker">{ asker }</span>
                <span>{ facts }</span>
            </div>
            <details>
                <summary>{ message("panelActivityArguments", &[]) }</summary>
                <pre>{ &call.args }</pre>
            </details>
        </li>
    }
}

fn sent_row(sent: &SentActivity) -> Html {
    html! {
        <li class="activity-row" data-kind="sent">
            <div class="activity-line">
                <time>{ clock(sent.at_ms) }</time>
                <strong>{ message("panelActivitySent", &[]) }</strong>
            </div>
            <ul class="context-sent">{ for sent.sent.iter().map(|label| sent_label(label, None)) }</ul>
        </li>
    }
}

fn asker_name(asker: &Asker) -> &'static str {
    match asker {
        Asker::Model => "model",
        Asker::App { .. } => "app",
        Asker::Person => "person",
    }
}

/// The date and time, short, in the browser's language.
fn clock(at_ms: u64) -> String {
    let date = js_sys::Date::new(&wasm_bindgen::JsValue::from_f64(at_ms as f64));
    let options = js_sys::Object::new();
    for (key, value) in [("dateStyle", "short"), ("timeStyle", "medium")] {
        let _ = js_sys::Reflect::set(&options, &key.into(), &value.into());
    }
    String::from(date.to_locale_string(&gemipanel_browser::chrome::ui_language(), &options))
}

fn size_words(bytes: usize) -> String {
    if bytes < 1024 {
        message("panelActivityBytes", &[&bytes.to_string()])
    } else {
        let kb = format!("{:.1}", bytes as f64 / 1024.0);
        message("panelActivityKilobytes", &[&kb])
    }
}
