use std::rc::Rc;

use gemipanel_browser::chrome::message;
use gemipanel_core::mcp::ElicitResult;
use yew::prelude::*;

use super::context_chips::kind_name;
use super::{
    elicitation_card::ElicitationCardView, error_card::ErrorCard, model_reply::ModelReplyView,
    tool_card::ToolCardView,
};
use crate::chat_driver::Decision;
use crate::shared::Shared;
use crate::state::{AppContextSent, ContextLabel, Entry};
use gemipanel_core::page::context::ContextKind;

#[derive(Properties, PartialEq)]
pub struct Props {
    pub entries: Shared<Vec<Rc<Entry>>>,
    pub on_decide: Callback<(String, Decision)>,
    pub on_elicit: Callback<(String, ElicitResult)>,
}

/// The conversation, one keyed and memoized view per entry.
#[function_component]
pub fn TranscriptView(props: &Props) -> Html {
    let entries = props.entries.iter().enumerate().map(|(i, entry)| {
        html! {
            <EntryView key={i} entry={Shared(entry.clone())}
                on_decide={props.on_decide.clone()} on_elicit={props.on_elicit.clone()} />
        }
    });
    html! { <ol class="transcript" aria-live="polite">{ for entries }</ol> }
}

#[derive(Properties, PartialEq)]
struct EntryProps {
    entry: Shared<Entry>,
    on_decide: Callback<(String, Decision)>,
    on_elicit: Callback<(String, ElicitResult)>,
}

#[function_component]
fn EntryView(props: &EntryProps) -> Html {
    let body = match &*props.entry {
        Entry::User { text, context, app_context } => html! {
            <>
                <div class="bubble">{ text.clone() }</div>
                if !context.is_empty() {
                    <ul class="context-sent" data-testid="context-sent">
                        { for context.iter().map(sent_label) }
                    </ul>
                }
                { for app_context.iter().map(sent_app_context) }
            </>
        },
        Entry::Model(reply) => html! { <ModelReplyView reply={reply.clone()} /> },
        Entry::Tool(card) => {
            html! { <ToolCardView card={card.clone()} on_decide={props.on_decide.clone()} /> }
        }
        Entry::Elicitation(card) => {
            html! { <ElicitationCardView card={card.clone()} on_answer={props.on_elicit.clone()} /> }
        }
        Entry::Notice { text } => html! { <p class="notice">{ text.clone() }</p> },
        Entry::Retrying { seconds, message: detail } => html! {
            <div class="notice retrying" data-testid="retrying">
                <strong>{ message("panelRetrying", &[&seconds.to_string()]) }</strong>
                <span class="detail">{ detail.clone() }</span>
            </div>
        },
        Entry::Error(error) => html! { <ErrorCard error={error.clone()} /> },
    };
    html! { <li class={classes!("entry", props.entry.kind())}>{ body }</li> }
}

/// What an app added to the model's context with the person's words: outside their bubble,
/// folded, saying which app.
fn sent_app_context(sent: &AppContextSent) -> Html {
    html! {
        <details class="app-context-sent" data-testid="app-context-sent">
            <summary>{ message("panelSentAppContext", &[&sent.tool, &sent.server]) }</summary>
            <pre>{ sent.text.clone() }</pre>
        </details>
    }
}

/// A context part as it was sent: what it was, the page's title, openable when it is a web
/// address.
fn sent_label(label: &ContextLabel) -> Html {
    let what = match label.kind {
        ContextKind::Page => message("panelSentPage", &[]),
        ContextKind::Selection => message("panelSentSelection", &[]),
        ContextKind::Image => message("panelSentImage", &[]),
        ContextKind::Link => message("panelSentLink", &[]),
    };
    let title = if label.title.trim().is_empty() { label.url.clone() } else { label.title.clone() };
    let web = label.url.starts_with("https://") || label.url.starts_with("http://");
    html! {
        <li data-kind={kind_name(label.kind)}>
            <span class="what">{ what }</span>
            if web {
                <a href={label.url.clone()} target="_blank" rel="noopener noreferrer" title={label.url.clone()}>{ title }</a>
            } else {
                <span title={label.url.clone()}>{ title }</span>
            }
        </li>
    }
}
