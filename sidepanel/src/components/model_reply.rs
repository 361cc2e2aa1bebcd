use gemipanel_browser::chrome::{message, word};
use gemipanel_core::gemini::usage::grouped;
use yew::prelude::*;

use super::markdown::Markdown;
use super::sources::SourcesView;
use crate::shared::Shared;
use crate::state::Entry;

#[derive(Properties, PartialEq)]
pub struct Props {
    /// The transcript's `Entry::Model`, shared: a view holding a copy of every reply's text
    /// (and its Copy button another) took a few KB of the panel's memory per turn for nothing.
    pub entry: Shared<Entry>,
    /// Set on the last reply of an exchange that can start a new version: ask again.
    #[prop_or_default]
    pub regenerate: Option<Callback<()>>,
}

/// A reply from Gemini: its thought summaries in a folded "Thinking" section above it (while
/// they stream and after), the text as markdown, a mark when cut short.
#[function_component]
pub fn ModelReplyView(props: &Props) -> Html {
    let Entry::Model(reply) = &*props.entry.0 else { return Html::default() };
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
    let regenerate = props.regenerate.as_ref().map(|on| {
        let onclick = on.reform(|_: MouseEvent| ());
        html! {
            <button type="button" class="icon-button" {onclick} data-testid="regenerate"
                title={message("panelRegenerate", &[])} aria-label={message("panelRegenerate", &[])}>
                { "↻" }
            </button>
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
            <div class="reply-meta">
                <CopyButton entry={props.entry.clone()} />
                { for regenerate }
                { for usage }
            </div>
        }
        </>
    }
}

#[derive(Properties, PartialEq)]
struct CopyProps {
    /// The reply, an `Entry::Model`: its text is made when copied.
    entry: Shared<Entry>,
}

/// Copies the reply as the Markdown it was written in.
#[function_component]
fn CopyButton(props: &CopyProps) -> Html {
    let copied = use_state(|| false);
    let onclick = {
        let (entry, copied) = (props.entry.clone(), copied.clone());
        Callback::from(move |_: MouseEvent| {
            let Entry::Model(reply) = &*entry.0 else { return };
            let (text, copied) = (reply.doc.text(), copied.clone());
            wasm_bindgen_futures::spawn_local(async move {
                copied.set(super::code_block::copy_text(&text).await);
            });
        })
    };
    let label =
        if *copied { message("panelCopied", &[]) } else { message("panelCopyMarkdown", &[]) };
    html! {
        <button type="button" class="icon-button" {onclick} data-testid="copy-reply"
            data-copied={copied.to_string()} title={label.clone()} aria-label={label}>
            if *copied { { "✓" } } else {
                // Two sheets: the usual "copy" sign (no font on every system has one).
                <svg width="13" height="13" viewBox="0 0 16 16" aria-hidden="true" fill="none"
                    stroke="currentColor" stroke-width="1.5">
                    <rect x="5.5" y="5.5" width="8" height="9" rx="1.5" />
                    <path d="M10.5 3.5v-1a1 1 0 0 0-1-1h-6a1 1 0 0 0-1 1v8a1 1 0 0 0 1 1h1" />
                </svg>
            }
        </button>
    }
}
