use std::rc::Rc;

use gemipanel_browser::chrome::message;
use gemipanel_core::mcp::ElicitResult;
use yew::prelude::*;

use super::{
    elicitation_card::ElicitationCardView, error_card::ErrorCard, model_reply::ModelReplyView,
    tool_card::ToolCardView,
};
use crate::chat_driver::Decision;
use crate::shared::Shared;
use crate::state::Entry;

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
        Entry::User { text } => html! { <div class="bubble">{ text.clone() }</div> },
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
