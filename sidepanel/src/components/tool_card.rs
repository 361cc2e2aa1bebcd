use gemipanel_browser::chrome::{message, number};
use yew::prelude::*;

use super::app_frame::AppFrame;
use crate::chat_driver::{Confirmation, Decision, SignInChoice};
use crate::state::{ToolCard, ToolStatus};
use gemipanel_core::settings::source::SourceKind;

#[derive(Properties, PartialEq)]
pub struct Props {
    pub card: ToolCard,
    pub on_decide: Callback<(String, Decision)>,
}

/// One tool call: collapsible details, and the confirmation buttons while it waits.
#[function_component]
pub fn ToolCardView(props: &Props) -> Html {
    let card = &props.card;
    let (state, label) = status_label(&card.status);
    let duration = card.duration_ms.map(|ms| format!("{}.{} s", ms / 1000, ms % 1000 / 100));
    let hint = match (card.read_only_hint, card.trusted_server) {
        (Some(true), true) => Some(message("panelReadOnly", &[])),
        (Some(true), false) => Some(message("panelReadOnlyUntrusted", &[])),
        _ => None,
    };
    let app = card.app.as_ref().map(|app| {
        html! {
            <AppFrame call_id={card.call_id.clone()} server_name={card.server_name.clone()}
                tool_name={card.tool.clone()} app={app.clone()} />
        }
    });
    html! {
        <>
        <details class={classes!("tool-card", state)}
            open={matches!(card.status, ToolStatus::Confirm | ToolStatus::NeedsSignIn { .. } | ToolStatus::NeedsAccess { .. })}
            data-testid="tool-card" data-state={state} data-call-id={card.call_id.clone()}>
            <summary>
                <span class="tool-name">{ &card.tool }</span>
                <span class="server">{ &card.server_name }</span>
                if card.found_by_search {
                    <span class="found" data-testid="found-by-search"
                        title={message("panelFoundBySearchHint", &[])}>
                        { message("panelFoundBySearch", &[]) }</span>
                }
                <span class="badge">{ label }</span>
                if let Some(d) = duration { <span class="duration">{ d }</span> }
            </summary>
            if let Some(hint) = hint { <p class="hint">{ hint }</p> }
            <h4>{ message("panelArguments", &[]) }</h4>
            <pre class="args">{ &card.args }</pre>
            { for progress(card) }
            if let Some(result) = &card.result {
                <h4>{ message("panelResult", &[]) }</h4>
                <pre class="result">{ result }</pre>
            }
            if let ToolStatus::Failed { message } = &card.status {
                <pre class="result error">{ message }</pre>
            }
            { sign_in(props) }
            { access(props) }
            if card.status == ToolStatus::Confirm { { confirm(props) } }
        </details>
        { for app }
        </>
    }
}

/// "Always allow this server", or the same said of the browser or of a site.
fn always_source(kind: SourceKind) -> String {
    match kind {
        SourceKind::Mcp => message("panelAlwaysServer", &[]),
        SourceKind::Browser => message("panelAlwaysBrowser", &[]),
        SourceKind::Page => message("panelAlwaysSite", &[]),
    }
}

/// A number as an attribute value (JavaScript's own formatting, as the element parses it).
fn js_number(value: f64) -> String {
    js_sys::Number::from(value).to_string_with_radix(10).map(String::from).unwrap_or_default()
}

/// The card's state (its `data-state`) and its badge.
fn status_label(status: &ToolStatus) -> (&'static str, String) {
    match status {
        ToolStatus::Confirm => ("confirm", message("panelToolConfirm", &[])),
        ToolStatus::Running => ("running", message("panelToolRunning", &[])),
        ToolStatus::Done => ("done", message("panelToolDone", &[])),
        ToolStatus::Failed { .. } => ("failed", message("panelToolFailed", &[])),
        ToolStatus::Denied => ("denied", message("panelToolDenied", &[])),
        ToolStatus::Cancelled => ("cancelled", message("panelToolCancelled", &[])),
        ToolStatus::NeedsSignIn { .. } => ("sign-in", message("panelToolNeedsSignIn", &[])),
        ToolStatus::NeedsAccess { .. } => ("access", message("panelToolNeedsAccess", &[])),
    }
}

/// A button's click, as the person's decision on this call.
fn decide(props: &Props, decision: Decision) -> Callback<MouseEvent> {
    let id = props.card.call_id.clone();
    props.on_decide.reform(move |_: MouseEvent| (id.clone(), decision))
}

/// A running call's progress, when its server tells it.
fn progress(card: &ToolCard) -> Option<Html> {
    let p = card.progress.as_ref().filter(|_| card.status == ToolStatus::Running)?;
    let value = match p.total {
        Some(total) => format!("{} / {}", number(p.progress), number(total)),
        None => number(p.progress),
    };
    // A bar only when the server gave a total: without one the end is unknown.
    let bar = p.total.map(|total| {
        html! { <progress max={js_number(total)} value={js_number(p.progress)}></progress> }
    });
    Some(html! {
        <div class="progress">
            { for bar }
            <span class="progress-text">{ value }{ " " }{ p.message.clone().unwrap_or_default() }</span>
        </div>
    })
}

/// The server needs a sign-in before the call can run.
fn sign_in(props: &Props) -> Html {
    let card = &props.card;
    let ToolStatus::NeedsSignIn { message: why, origin, busy } = &card.status else {
        return Html::default();
    };
    html! {
        <div class="sign-in" data-testid="sign-in-card">
            <p class="hint">{ why }</p>
            if *busy {
                <p class="hint" data-state="busy"><span class="spinner" aria-hidden="true"></span>
                    { message("panelSigningIn", &[]) }</p>
            } else {
                <div class="confirm">
                    if origin.is_some() {
                        <button class="primary" onclick={decide(props, Decision::SignIn(SignInChoice::AllowAndSignIn))}>
                            { message("panelAllowAndSignIn", &[]) }</button>
                    } else {
                        <button class="primary" onclick={decide(props, Decision::SignIn(SignInChoice::SignIn))}>
                            { message("panelSignIn", &[&card.server_name]) }</button>
                    }
                    <button onclick={decide(props, Decision::SignIn(SignInChoice::Skip))}>{ message("panelSkipSignIn", &[]) }</button>
                </div>
            }
        </div>
    }
}

/// The call needs access to a site (or to every tab) first.
fn access(props: &Props) -> Html {
    let ToolStatus::NeedsAccess { message: why, tabs, .. } = &props.card.status else {
        return Html::default();
    };
    html! {
        <div class="access" data-testid="access-card">
            <p class="hint">{ why }</p>
            <div class="confirm">
                <button class="primary" onclick={decide(props, Decision::Access(true))} data-testid="allow-access">
                    { message(if *tabs { "panelAllowTabs" } else { "panelAllowAccess" }, &[]) }</button>
                <button onclick={decide(props, Decision::Access(false))}>{ message("panelSkipAccess", &[]) }</button>
            </div>
        </div>
    }
}

/// The call waits for the person: once, always (the tool, the source), or not.
fn confirm(props: &Props) -> Html {
    let card = &props.card;
    let kind = SourceKind::of(&card.server_id);
    html! {
        <>
        if card.asked_for_page_content {
            <p class="hint web-content" data-testid="asked-for-web-content">
                { message("panelAskedForWebContent", &[&card.server_name]) }</p>
        }
        <div class="confirm">
            <button class="primary" onclick={decide(props, Decision::Confirm(Confirmation::AllowOnce))}>{ message("panelAllowOnce", &[]) }</button>
            // An app's own tool lives as long as the app: nothing to remember it by.
            // A trusted tool asked because of web content: "always" is already so.
            if card.asked_for_page_content {
                <button onclick={decide(props, Decision::Confirm(Confirmation::StopAskingAfterWebContent))}>
                    { message("panelStopAskingAfterWebContent", &[&card.server_name]) }</button>
            } else if !card.from_app {
                <button onclick={decide(props, Decision::Confirm(Confirmation::AlwaysTool))}>{ message("panelAlwaysTool", &[]) }</button>
                <button onclick={decide(props, Decision::Confirm(Confirmation::AlwaysServer))}>{ always_source(kind) }</button>
            }
            <button class="danger" onclick={decide(props, Decision::Confirm(Confirmation::Deny))}>{ message("panelDeny", &[]) }</button>
        </div>
        </>
    }
}
