use gemipanel_browser::chrome::{message, word};
use gemipanel_core::gemini::usage::grouped;
use yew::prelude::*;

use super::markdown::Markdown;
use super::sources::SourcesView;
use crate::state::ModelReply;

#[derive(Properties, PartialEq)]
pub struct Props {
    pub reply: ModelReply,
}

/// A reply from Gemini: its thought summaries in a folded "Thinking" section above it (while
/// they stream and after), the text as markdown, a mark when cut short.
#[function_component]
pub fn ModelReplyView(props: &Props) -> Html {
    let reply = &props.reply;
    // Thoughts arrive before the answer: until its first words, the section says it goes on.
    let thinking_now = reply.streaming && reply.doc.is_empty();
    let thoughts = (!reply.thoughts.is_empty()).then(|| {
        html! {
            <details class="thoughts" data-testid="thoughts">
                <summary>
                    { message("panelThoughts", &[]) }
                    if thinking_now { <span class="typing" aria-hidden="true"></span> }
                </summary>
                <div class="thoughts-body"><Markdown doc={reply.thoughts.clone()} /></div>
            </details>
        }
    });
    // The turn's tokens: the total shown small, the breakdown on hover or focus (a tooltip of
    // the page's own, which a native `title` would double) and to screen readers.
    let usage = reply.usage.map(|usage| {
        let detail = word(&usage.text());
        html! {
            <span class="usage" tabindex="0" data-detail={detail.clone()} aria-label={detail}
                data-testid="usage">{ message("panelTokens", &[&grouped(usage.total)]) }</span>
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
        <>
        <article class={classes!("reply", state)} data-testid="reply" data-state={state}>
            { for thoughts }
            <div class="answer" data-testid="answer"><Markdown doc={reply.doc.clone()} /></div>
            if let Some(sources) = &reply.sources {
                <SourcesView sources={sources.clone()} />
            }
            if thinking_now && reply.thoughts.is_empty() {
                <span class="typing" aria-label={message("panelThinking", &[])}></span>
            }
            if reply.incomplete {
                <p class="incomplete-mark">{ message("panelIncomplete", &[]) }</p>
            }
        </article>
        // Beside the reply, not in it: what the reply says stays its text alone.
        if !reply.streaming {
            <div class="reply-meta">{ for usage }</div>
        }
        </>
    }
}
