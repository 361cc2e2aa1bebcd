//! What the main area shows: the chat (or its empty state), the history, the tool browser or
//! the chat's activity.

use std::rc::Rc;

use gemipanel_core::resource_updates::{mark_places, FollowedResource};
use yew::prelude::*;

use super::chats_actions::HistoryActions;
use super::{emit, Page};
use crate::components::{
    activity_view::ActivityView,
    empty_chat::EmptyChat,
    history_list::HistoryList,
    tool_browser::{ServerEntry, ToolBrowser},
    transcript_view::{TranscriptActions, TranscriptView},
};
use crate::shared::Shared;
use crate::state::{Action, ContextLabel, Entry, State, View};

pub(super) fn main_view(
    page: &Page,
    history: HistoryActions,
    transcript: TranscriptActions,
    changed: &[FollowedResource],
) -> Html {
    let state = &page.state;
    match state.view {
        View::History => {
            let HistoryActions { on_open, on_rename, on_delete, on_export, on_import, status } =
                history;
            html! {
                <HistoryList chats={state.saved.clone()} current={state.chat.id.clone()}
                    {on_open} {on_rename} {on_delete} {on_export} {on_import} {status} />
            }
        }
        View::Tools => {
            let servers = state
                .settings
                .iter()
                .flat_map(|s| s.servers.iter())
                .map(|s| ServerEntry { id: s.id.as_str().to_owned(), name: s.name.clone() })
                .collect::<Vec<_>>();
            html! { <ToolBrowser {servers} /> }
        }
        View::Activity => html! {
            <ActivityView activity={state.chat.activity.clone()}
                on_close={emit(&page.dispatcher, |()| Action::ShowActivity(false))} />
        },
        View::Chat if state.chat.entries.is_empty() => {
            html! { <EmptyChat key_state={state.key_state()} /> }
        }
        View::Chat => transcript_view(state, transcript, changed),
    }
}

fn transcript_view(
    state: &State,
    actions: TranscriptActions,
    changed: &[FollowedResource],
) -> Html {
    let sent: Vec<&[ContextLabel]> = state
        .chat
        .entries
        .iter()
        .filter_map(|e| match &**e {
            Entry::User { context, .. } => Some(context.as_slice()),
            _ => None,
        })
        .collect();
    let marks = Shared(Rc::new(mark_places(&sent, changed)));
    html! {
        <TranscriptView entries={Shared(Rc::new(state.chat.entries.clone()))}
            messages={Shared(Rc::new(state.chat.message_info()))}
            busy={state.chat.busy} {marks} {actions} />
    }
}
