use gemipanel_browser::chrome::{message, word};
use gemipanel_core::mcp::ElicitResult;
use gemipanel_core::messages::ElicitationPrompt;
use gemipanel_core::tools::form::{fields, missing, FLAT};
use gemipanel_core::url_policy;
use serde_json::Map;
use yew::prelude::*;

use super::form_field::{form_field, Values};
use crate::state::ElicitationCard;

#[derive(Properties, PartialEq)]
pub struct Props {
    pub card: ElicitationCard,
    pub on_answer: Callback<(String, ElicitResult)>,
}

/// A server's question during a tool call: a form from its schema, or a link to open.
#[function_component]
pub fn ElicitationCardView(props: &Props) -> Html {
    let values: Values = use_mut_ref(|| match &props.card.prompt {
        ElicitationPrompt::Form { defaults, .. } => defaults.clone(),
        ElicitationPrompt::Url { .. } => Map::new(),
    });
    let problem = use_state(|| None::<String>);
    let (text, form) = match &props.card.prompt {
        ElicitationPrompt::Form { message, requested_schema, .. } => {
            (message.clone(), fields(requested_schema, FLAT))
        }
        ElicitationPrompt::Url { message, .. } => (message.clone(), Vec::new()),
    };
    let id = props.card.elicitation_id.clone();
    // Checked before anything is shown: only https (or http to this computer) is offered.
    let checked = match &props.card.prompt {
        ElicitationPrompt::Url { url, .. } => Some(url_policy::link(url)),
        ElicitationPrompt::Form { .. } => None,
    };
    let url = checked.as_ref().and_then(|c| c.as_ref().ok()).map(|l| l.href.clone());
    let refused = checked.as_ref().and_then(|c| c.as_ref().err()).map(word);
    let on_accept = {
        let (id, values, problem, on_answer) =
            (id.clone(), values.clone(), problem.clone(), props.on_answer.clone());
        let (form, url) = (form.clone(), url.clone());
        Callback::from(move |_: MouseEvent| {
            // URL mode: Accept is the consent to open the link (MCP 2025-11-25), so it opens it,
            // in a tab of its own that this page cannot look into.
            if let Some(url) = &url {
                open_tab(url);
                return on_answer.emit((id.clone(), ElicitResult::accept(Map::new())));
            }
            let content = values.borrow().clone();
            match missing(&form, &content).as_slice() {
                [] => on_answer.emit((id.clone(), ElicitResult::accept(content))),
                names => problem.set(Some(message("panelRequired", &[&names.join(", ")]))),
            }
        })
    };
    let plain = |result: fn() -> ElicitResult| {
        let id = id.clone();
        props.on_answer.reform(move |_: MouseEvent| (id.clone(), result()))
    };
    // The spec wants the full URL and its host shown before consent; following the link is
    // consent too, so it answers Accept. Once answered, the URL stays as plain text.
    let link = match checked.as_ref().and_then(|c| c.as_ref().ok()) {
        Some(link) => {
            let url = &link.href;
            let accept = plain(|| ElicitResult::accept(Map::new()));
            html! {
                <p class="elicitation-url">
                    <strong data-testid="elicitation-host">{ &link.host }</strong>
                    if let Some(unicode) = &link.host_unicode {
                        { " " }<span class="muted" data-testid="elicitation-host-unicode">
                            { message("panelLinkLooksLike", &[unicode]) }</span>
                    }
                    <br />
                    if props.card.answer.is_none() {
                        <a href={url.clone()} target="_blank" rel="noopener noreferrer"
                            onclick={accept}>{ url }</a>
                    } else {
                        <span>{ url }</span>
                    }
                </p>
            }
        }
        None => html! {},
    };
    html! {
        <div class="elicitation-card" data-testid="elicitation">
            if let Some(server) = &props.card.server_name {
                <p class="elicitation-from" data-testid="elicitation-server">
                    { message("panelElicitationFrom", &[server]) }
                </p>
            }
            <p>{ text }</p>
            { link }
            { for form.iter().map(|f| form_field(f, &[], &values, &Callback::noop())) }
            if let Some(answer) = &props.card.answer {
                <p class="badge">{ answer }</p>
            } else {
                if let Some(problem) = &*problem { <p class="hint error">{ problem }</p> }
                if let Some(refused) = &refused {
                    <p class="hint error" role="alert" data-testid="elicitation-refused">{ refused }</p>
                }
                <div class="confirm">
                    if refused.is_none() {
                        <button class="primary" onclick={on_accept}>{ message("panelAccept", &[]) }</button>
                    }
                    <button onclick={plain(ElicitResult::decline)}>{ message("panelDecline", &[]) }</button>
                    <button onclick={plain(ElicitResult::cancel)}>{ message("panelCancel", &[]) }</button>
                </div>
            }
        </div>
    }
}

fn open_tab(url: &str) {
    if let Some(window) = web_sys::window() {
        // `open` is a `catch` binding: a refusal is an Err, not a stuck promise.
        let _ = window.open_with_url_and_target_and_features(url, "_blank", "noopener,noreferrer");
    }
}
