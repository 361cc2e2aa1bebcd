use gemipanel_browser::chrome::message;
use yew::prelude::*;

use super::markdown::Markdown;
use crate::state::ModelReply;

#[derive(Properties, PartialEq)]
pub struct Props {
    pub reply: ModelReply,
}

/// A reply from Gemini: thoughts folded away, the text as markdown, a mark when cut short.
#[function_component]
pub fn ModelReplyView(props: &Props) -> Html {
    let reply = &props.reply;
    let thoughts = (!reply.thoughts.is_empty()).then(|| {
        html! {
            <details class="thoughts">
                <summary>{ message("panelThoughts", &[]) }</summary>
                <p>{ reply.thoughts.clone() }</p>
            </details>
        }
    });
    let state = if reply.streaming {
        "streaming"
    } else if reply.incomplete {
        "incomplete"
    } else {
        "done"
    };
    html! {
        <article class={classes!("reply", state)} data-testid="reply" data-state={state}>
            { for thoughts }
            <Markdown doc={reply.doc.clone()} />
            if reply.streaming && reply.doc.is_empty() {
                <span class="typing" aria-label={message("panelThinking", &[])}></span>
            }
            if reply.incomplete {
                <p class="incomplete-mark">{ message("panelIncomplete", &[]) }</p>
            }
        </article>
    }
}
