use std::rc::Rc;

use gemipanel_browser::chrome::message;
use gemipanel_core::mcp::ElicitResult;
use yew::prelude::*;

use super::changed_mark::ChangedMark;
use super::context_chips::kind_name;
use super::{
    elicitation_card::ElicitationCardView, error_card::ErrorCard, markdown::Markdown,
    model_reply::ModelReplyView, retrying::RetryingView, sign_in_notice::SignInNoticeView,
    tool_card::ToolCardView, user_message::UserMessage,
};
use crate::chat_driver::Decision;
use crate::shared::Shared;
use crate::state::{AppContextSent, ContextLabel, Entry, MessageInfo};
use gemipanel_core::page::context::ContextKind;
use gemipanel_core::resource_updates::FollowedResource;

/// What the person can do from the transcript besides answering tool cards.
#[derive(Clone, PartialEq)]
pub struct TranscriptActions {
    pub on_decide: Callback<(String, Decision)>,
    pub on_elicit: Callback<(String, ElicitResult)>,
    /// Go on with the reply the output limit cut.
    pub on_continue: Callback<()>,
    /// Send the request that waits for its retry now.
    pub on_retry_now: Callback<()>,
    /// (message, new text): a new version of the chat from an edited message.
    pub on_edit: Callback<(usize, String)>,
    /// A new version of the chat from message `at`, sent as it was.
    pub on_regenerate: Callback<usize>,
    /// (message, version) to show.
    pub on_switch: Callback<(usize, usize)>,
    /// (server id, origin to allow first): sign in from a notice that the server needs it.
    pub on_notice_sign_in: Callback<(String, Option<String>)>,
    /// A changed resource's Refresh: (resource, its title).
    pub on_refresh: Callback<(FollowedResource, String)>,
}

#[derive(Properties, PartialEq)]
pub struct Props {
    pub entries: Shared<Vec<Rc<Entry>>>,
    /// The person's messages on the path shown, in order.
    pub messages: Shared<Vec<MessageInfo>>,
    /// A turn runs: only the last entry may offer what acts on the turn's end.
    pub busy: bool,
    /// The sent resources marked as changed: (message, label) positions
    /// (`core::resource_updates::mark_places`).
    pub marks: Shared<Vec<(usize, usize)>>,
    pub actions: TranscriptActions,
}

/// Where an entry stands in its exchange (a message of the person's and what followed it).
#[derive(Clone, Copy, PartialEq, Default)]
struct Place {
    /// The exchange's message (0-based), when it has one.
    at: Option<usize>,
    info: MessageInfo,
    /// The last reply of its exchange: it can be regenerated.
    last_reply: bool,
    /// The chat's last exchange, and no turn runs: what sends the turn again may.
    may_resend: bool,
}

/// The conversation, one keyed and memoized view per entry.
#[function_component]
pub fn TranscriptView(props: &Props) -> Html {
    let last = props.entries.len().saturating_sub(1);
    let mut places = places(&props.entries, &props.messages);
    let last_message = props.messages.len().checked_sub(1);
    for place in &mut places {
        place.may_resend = !props.busy && place.at.is_some() && place.at == last_message;
    }
    let mut groups: Vec<Vec<Item>> = Vec::with_capacity(props.entries.len() / GROUP + 1);
    for (i, (entry, place)) in props.entries.iter().zip(places).enumerate() {
        // What belongs to the end of the chat: a Continue after the last reply when idle, the
        // countdown of the wait the chat is in.
        let live = i == last && matches!(**entry, Entry::Retrying { .. } | Entry::Finish { .. });
        let live = live && (props.busy == matches!(**entry, Entry::Retrying { .. }));
        let marked: Vec<usize> = match (&**entry, place.at) {
            (Entry::User { .. }, Some(at)) => {
                props.marks.iter().filter(|(m, _)| *m == at).map(|(_, l)| *l).collect()
            }
            _ => Vec::new(),
        };
        if i % GROUP == 0 {
            groups.push(Vec::with_capacity(GROUP));
        }
        let item = Item { entry: Shared(entry.clone()), live, place, marked };
        groups.last_mut().expect("a group was just started").push(item);
    }
    let groups = groups.into_iter().enumerate().map(|(g, items)| {
        html! { <EntryGroup key={g} first={g * GROUP} {items} actions={props.actions.clone()} /> }
    });
    html! { <ol class="transcript" aria-live="polite">{ for groups }</ol> }
}

/// Entries render in groups of this many, each group only when one of its entries changed:
/// a component per entry made each chunk of a reply build and compare every entry's props,
/// a cost that grew with the chat.
const GROUP: usize = 16;

/// An entry and where it stands, as its view needs them.
#[derive(PartialEq)]
struct Item {
    entry: Shared<Entry>,
    live: bool,
    place: Place,
    marked: Vec<usize>,
}

#[derive(Properties, PartialEq)]
struct GroupProps {
    /// The index of the group's first entry in the transcript.
    first: usize,
    items: Vec<Item>,
    actions: TranscriptActions,
}

#[function_component]
fn EntryGroup(props: &GroupProps) -> Html {
    let views = props.items.iter().enumerate().map(|(n, item)| {
        html! {
            <EntryView key={props.first + n} entry={item.entry.clone()} live={item.live}
                place={item.place} marked={item.marked.clone()} actions={props.actions.clone()} />
        }
    });
    html! { <>{ for views }</> }
}

/// Each entry's exchange, and whether it is the exchange's last reply.
fn places(entries: &[Rc<Entry>], messages: &[MessageInfo]) -> Vec<Place> {
    let mut places = Vec::with_capacity(entries.len());
    let mut at: Option<usize> = None;
    let mut last_reply: Option<usize> = None;
    for (i, entry) in entries.iter().enumerate() {
        match &**entry {
            Entry::User { .. } => {
                at = Some(at.map_or(0, |a| a + 1));
                last_reply = None;
            }
            Entry::Model(_) => last_reply = Some(i),
            _ => {}
        }
        let info = at.and_then(|a| messages.get(a).copied()).unwrap_or_default();
        places.push(Place { at, info, last_reply: false, may_resend: false });
        if let (Some(reply), Some(next)) = (last_reply, entries.get(i + 1)) {
            if matches!(**next, Entry::User { .. }) {
                places[reply].last_reply = true;
            }
        }
    }
    if let Some(reply) = last_reply {
        places[reply].last_reply = true;
    }
    places
}

#[derive(Properties, PartialEq)]
struct EntryProps {
    entry: Shared<Entry>,
    live: bool,
    place: Place,
    /// Which of a message's labels show a changed resource's mark.
    marked: Vec<usize>,
    actions: TranscriptActions,
}

#[function_component]
fn EntryView(props: &EntryProps) -> Html {
    let actions = &props.actions;
    let body = match &*props.entry {
        Entry::User { text, context, app_context, .. } => html! {
            <>
                <UserMessage text={text.clone()} at={props.place.at.unwrap_or_default()}
                    info={props.place.info} on_edit={actions.on_edit.clone()}
                    on_switch={actions.on_switch.clone()} />
                if !context.is_empty() {
                    <ul class="context-sent" data-testid="context-sent">
                        { for context.iter().enumerate().map(|(n, label)| {
                            let refresh = props.marked.contains(&n).then(|| actions.on_refresh.clone());
                            sent_label(label, refresh)
                        }) }
                    </ul>
                }
                { for app_context.iter().map(sent_app_context) }
            </>
        },
        Entry::Model(_) => {
            let place = props.place;
            let regenerate = (place.last_reply && place.info.editable)
                .then(|| place.at.map(|at| actions.on_regenerate.reform(move |()| at)))
                .flatten();
            html! { <ModelReplyView entry={props.entry.clone()} {regenerate} /> }
        }
        Entry::Tool(card) => {
            html! { <ToolCardView card={card.clone()} on_decide={actions.on_decide.clone()} /> }
        }
        Entry::Elicitation(card) => {
            html! { <ElicitationCardView card={card.clone()} on_answer={actions.on_elicit.clone()} /> }
        }
        Entry::Notice { text, sign_in: None } => html! { <p class="notice">{ text.clone() }</p> },
        Entry::Notice { text, sign_in: Some(offer) } => {
            let place = props.place;
            let on_retry = (place.may_resend && place.info.editable)
                .then(|| place.at.map(|at| actions.on_regenerate.reform(move |()| at)))
                .flatten();
            html! {
                <SignInNoticeView text={text.clone()} offer={offer.clone()} {on_retry}
                    on_sign_in={actions.on_notice_sign_in.clone()} />
            }
        }
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
/// address; a resource that changed since with its mark and Refresh (`refresh`).
pub(crate) fn sent_label(
    label: &ContextLabel,
    refresh: Option<Callback<(FollowedResource, String)>>,
) -> Html {
    let what = match label.kind {
        ContextKind::Page => message("panelSentPage", &[]),
        ContextKind::Selection => message("panelSentSelection", &[]),
        ContextKind::Image => message("panelSentImage", &[]),
        ContextKind::Link => message("panelSentLink", &[]),
        ContextKind::Resource => message("panelSentResource", &[]),
        ContextKind::File => message("panelSentFile", &[]),
    };
    let title = if label.title.trim().is_empty() { label.url.clone() } else { label.title.clone() };
    let web = label.url.starts_with("https://") || label.url.starts_with("http://");
    let mark = refresh.zip(FollowedResource::of(label)).map(|(on_refresh, resource)| {
        html! { <ChangedMark {resource} title={title.clone()} {on_refresh} /> }
    });
    html! {
        <li data-kind={kind_name(label.kind)} class={classes!(mark.is_some().then_some("changed"))}>
            <span class="what">{ what }</span>
            if web {
                <a href={label.url.clone()} target="_blank" rel="noopener noreferrer" title={label.url.clone()}>{ title }</a>
            } else {
                <span title={label.url.clone()}>{ title }</span>
            }
            { for mark }
        </li>
    }
}
