use std::rc::Rc;

use gemipanel_browser::chrome::message;
use gemipanel_core::mcp::ElicitResult;
use yew::prelude::*;

use super::{
    elicitation_card::ElicitationCardView, error_card::ErrorCard, markdown::Markdown,
    model_reply::ModelReplyView, retrying::RetryingView, tool_card::ToolCardView,
};
use crate::chat_driver::Decision;
use crate::shared::Shared;
use crate::state::Entry;

/// What the person can do from the transcript besides answering tool cards.
#[derive(Clone, PartialEq)]
pub struct TranscriptActions {
    pub on_decide: Callback<(String, Decision)>,
    pub on_elicit: Callback<(String, ElicitResult)>,
    /// Go on with the reply the output limit cut.
    pub on_continue: Callback<()>,
    /// Send the request that waits for its retry now.
    pub on_retry_now: Callback<()>,
}

#[derive(Properties, PartialEq)]
pub struct Props {
    pub entries: Shared<Vec<Rc<Entry>>>,
    /// A turn runs: only the last entry may offer what acts on the turn's end.
    pub busy: bool,
    pub actions: TranscriptActions,
}

/// The conversation, one keyed and memoized view per entry.
#[function_component]
pub fn TranscriptView(props: &Props) -> Html {
    let last = props.entries.len().saturating_sub(1);
    let entries = props.entries.iter().enumerate().map(|(i, entry)| {
        // What belongs to the end of the chat: a Continue after the last reply when idle, the
        // countdown of the wait the chat is in.
        let live = i == last && matches!(**entry, Entry::Retrying { .. } | Entry::Finish { .. });
        let live = live && (props.busy == matches!(**entry, Entry::Retrying { .. }));
        html! {
            <EntryView key={i} entry={Shared(entry.clone())} {live} actions={props.actions.clone()} />
        }
    });
    html! { <ol class="transcript" aria-live="polite">{ for entries }</ol> }
}

#[derive(Properties, PartialEq)]
struct EntryProps {
    entry: Shared<Entry>,
    live: bool,
    actions: TranscriptActions,
}

#[function_component]
fn EntryView(props: &EntryProps) -> Html {
    let actions = &props.actions;
    let body = match &*props.entry {
        Entry::User { text } => html! { <div class="bubble">{ text.clone() }</div> },
        Entry::Model(reply) => html! { <ModelReplyView reply={reply.clone()} /> },
        Entry::Tool(card) => {
            html! { <ToolCardView card={card.clone()} on_decide={actions.on_decide.clone()} /> }
        }
        Entry::Elicitation(card) => {
            html! { <ElicitationCardView card={card.clone()} on_answer={actions.on_elicit.clone()} /> }
        }
        Entry::Notice { text } => html! { <p class="notice">{ text.clone() }</p> },
        Entry::Finish { code, text } => {
            let can_continue = props.live && code == "MAX_TOKENS";
            let onclick = actions.on_continue.reform(|_: MouseEvent| ());
            html! {
                <div class="notice finish" data-testid="finish" data-code={code.clone()}>
                    <p>{ text.clone() }</p>
                    if can_continue {
                        <button type="button" {onclick} data-testid="continue">
                            { message("panelContinue", &[]) }</button>
                    }
                </div>
            }
        }
        Entry::Retrying { seconds, message: detail, until_ms, retry, max } => html! {
            <RetryingView seconds={*seconds} message={detail.clone()} until_ms={*until_ms}
                retry={*retry} max={*max} live={props.live}
                on_retry_now={actions.on_retry_now.clone()} />
        },
        Entry::Error(error) => html! { <ErrorCard error={error.clone()} /> },
        Entry::Summary { text, from_title } => html! {
            <details class="summary-card" data-testid="summary">
                <summary>{ message("panelContinuedFrom", &[from_title]) }</summary>
                <Markdown doc={crate::markdown::MdDoc::from_text(text)} />
            </details>
        },
    };
    html! { <li class={classes!("entry", props.entry.kind())}>{ body }</li> }
}
