//! What the person does to the chat's turns: send, stop, go on, summarize, retry, edit or
//! regenerate a message, switch versions, decide on a tool call, answer a server's question,
//! sign in from a notice, read a changed resource again.

use gemipanel_core::gemini::history::edited_parts;
use gemipanel_core::mcp::{ElicitAction, ElicitResult};
use gemipanel_core::messages::Request;
use gemipanel_core::resource_updates::FollowedResource;
use std::cell::RefCell;
use std::rc::Rc;

use yew::prelude::*;

use super::{depart_apps_from, depart_apps_in, turn_setup, Page};
use crate::chat_driver::Decision;
use crate::components::transcript_view::TranscriptActions;
use crate::state::{Action, State, View};

/// The composer's and the context meter's part of the turns.
pub(super) struct TurnActions {
    pub on_send: Callback<String>,
    pub on_stop: Callback<()>,
    pub on_summarize: Callback<()>,
    pub on_refresh: Callback<(FollowedResource, String)>,
}

pub(super) fn turn_actions(page: &Page) -> TurnActions {
    let Page { state, driver, main, .. } = page;
    let on_send = {
        let (driver, state, main) = (driver.clone(), state.clone(), main.clone());
        Callback::from(move |text: String| {
            // Sending from the history or the tool browser shows the chat in their place.
            if state.view != View::Chat {
                depart_apps_in(&main);
            }
            driver.send(text, turn_setup(&state));
        })
    };
    let on_stop = {
        let driver = driver.clone();
        Callback::from(move |_| driver.stop())
    };
    let on_summarize = {
        let (driver, state) = (driver.clone(), state.clone());
        Callback::from(move |()| driver.summarize(turn_setup(&state)))
    };
    let on_refresh = {
        let (port, settings, dispatcher) =
            (page.port.clone(), state.settings.clone(), page.dispatcher.clone());
        Callback::from(move |(resource, title): (FollowedResource, String)| {
            let (port, settings) = (port.clone(), settings.clone());
            crate::resource_refresh::refresh(port, settings, resource, title, dispatcher.clone());
        })
    };
    TurnActions { on_send, on_stop, on_summarize, on_refresh }
}

/// What the transcript's entries offer.
pub(super) fn transcript_actions(
    page: &Page,
    on_refresh: Callback<(FollowedResource, String)>,
) -> TranscriptActions {
    let driver = &page.driver;
    let on_continue = {
        let (driver, state) = (driver.clone(), page.state.clone());
        Callback::from(move |()| driver.continue_reply(turn_setup(&state)))
    };
    let on_retry_now = {
        let driver = driver.clone();
        Callback::from(move |()| driver.retry_now())
    };
    let on_notice_sign_in = {
        let driver = driver.clone();
        Callback::from(move |(server, origin)| driver.sign_in_from_notice(server, origin))
    };
    let branch = branch(page);
    let on_decide = {
        let driver = driver.clone();
        Callback::from(move |(id, d): (String, Decision)| driver.decide(&id, d))
    };
    TranscriptActions {
        on_decide,
        on_elicit: elicit(page),
        on_continue,
        on_retry_now,
        on_edit: branch.reform(|(at, text): (usize, String)| (at, Some(text))),
        on_regenerate: branch.reform(|at: usize| (at, None)),
        on_switch: switch(page),
        on_notice_sign_in,
        on_refresh,
    }
}

/// A new version from message `at`: sent again with `text` (edited) or as it was.
fn branch(page: &Page) -> Callback<(usize, Option<String>)> {
    let (driver, state, main) = (page.driver.clone(), page.state.clone(), page.main.clone());
    Callback::from(move |(at, text): (usize, Option<String>)| {
        let Some(point) = state.chat.branch_point(at) else { return };
        let (text, parts) = match text {
            Some(new) => (new.clone(), edited_parts(&point.parts, &point.text, &new)),
            None => (point.text.clone(), point.parts.clone()),
        };
        depart_apps_from(&main, entry_of_message(&state, at));
        driver.reset(point.history, &state.chat.call_ids());
        state.dispatch(Action::Branch { at });
        driver.send_parts(text, parts, turn_setup(&state));
    })
}

/// The transcript's actions, the same from one render to the next: each calls the newest
/// render's. Made anew at each render, they made every entry of the transcript render again at
/// each chunk of a reply (its props differed), comparing and copying every tool card and app.
#[hook]
pub(super) fn use_steady_transcript_actions(newest: TranscriptActions) -> TranscriptActions {
    let current = use_mut_ref(|| newest.clone());
    *current.borrow_mut() = newest;
    (*use_memo((), move |_| forwarding(&current))).clone()
}

fn forwarding(current: &Rc<RefCell<TranscriptActions>>) -> TranscriptActions {
    fn to<A: 'static>(
        current: &Rc<RefCell<TranscriptActions>>,
        pick: fn(&TranscriptActions) -> &Callback<A>,
    ) -> Callback<A> {
        let current = current.clone();
        Callback::from(move |arg: A| {
            // Out of the cell before it runs: what it dispatches may render (and write the
            // cell) at once.
            let action = pick(&current.borrow()).clone();
            action.emit(arg)
        })
    }
    TranscriptActions {
        on_decide: to(current, |a| &a.on_decide),
        on_elicit: to(current, |a| &a.on_elicit),
        on_continue: to(current, |a| &a.on_continue),
        on_retry_now: to(current, |a| &a.on_retry_now),
        on_edit: to(current, |a| &a.on_edit),
        on_regenerate: to(current, |a| &a.on_regenerate),
        on_switch: to(current, |a| &a.on_switch),
        on_notice_sign_in: to(current, |a| &a.on_notice_sign_in),
        on_refresh: to(current, |a| &a.on_refresh),
    }
}

/// Shows version `to` of message `at`.
fn switch(page: &Page) -> Callback<(usize, usize)> {
    let (driver, state, main) = (page.driver.clone(), page.state.clone(), page.main.clone());
    Callback::from(move |(at, to): (usize, usize)| {
        if state.chat.busy {
            return;
        }
        // What the driver continues from is the version about to show; nothing of the
        // one it replaces runs again, and nothing of the one it brings back runs anew.
        let next = state.chat.switched(at, to);
        depart_apps_from(&main, entry_of_message(&state, at));
        driver.reset((*next.history).clone(), &next.call_ids());
        state.dispatch(Action::SwitchVersion { at, to });
        let shown: Vec<_> = next.entries.iter().map(|e| (**e).clone()).collect();
        driver.load_missing_apps(&shown);
    })
}

/// The person's answer to a server's question goes to the worker; the card shows it.
fn elicit(page: &Page) -> Callback<(String, ElicitResult)> {
    let (port, dispatcher) = (page.port.clone(), page.dispatcher.clone());
    Callback::from(move |(elicitation_id, result): (String, ElicitResult)| {
        let answer = match result.action {
            ElicitAction::Accept => "panelAccepted",
            ElicitAction::Decline => "panelDeclined",
            ElicitAction::Cancel => "panelCancelled",
        };
        let answer = gemipanel_browser::chrome::message(answer, &[]);
        dispatcher.dispatch(Action::ElicitationAnswered {
            elicitation_id: elicitation_id.clone(),
            answer,
        });
        let port = port.clone();
        wasm_bindgen_futures::spawn_local(async move {
            let _ = port.request(Request::AnswerElicitation { elicitation_id, result }).await;
        });
    })
}

/// The transcript index of the person's message `at`.
fn entry_of_message(state: &State, at: usize) -> usize {
    state
        .chat
        .entries
        .iter()
        .enumerate()
        .filter(|(_, e)| matches!(***e, crate::state::Entry::User { .. }))
        .nth(at)
        .map_or(state.chat.entries.len(), |(i, _)| i)
}
