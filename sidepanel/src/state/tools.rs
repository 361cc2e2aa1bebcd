//! Tool calls in the chat (their cards, from asked to finished, and the activity they leave)
//! and what their apps and servers bring (an app's resource and result, a draft, a question).

use std::rc::Rc;

use super::{Action, ChatView, Entry, State, ToolStatus};
use crate::transcript::{app_resources, shared_resource};

pub(super) fn on_tool(chat: &mut ChatView, action: Action) {
    match action {
        Action::ToolAsked(card) => {
            chat.end_streaming(false);
            chat.entries.push(Rc::new(Entry::Tool(card)));
        }
        Action::ToolStarted { call_id, now_ms } => {
            if let Some(card) = chat.tool_mut(&call_id) {
                card.status = ToolStatus::Running;
                card.started_ms = Some(now_ms);
            }
        }
        Action::ToolProgress { call_id, progress } => {
            if let Some(card) = chat.tool_mut(&call_id) {
                card.progress = Some(progress);
            }
        }
        Action::ToolNeedsSignIn { call_id, message, origin, busy } => {
            if let Some(card) = chat.tool_mut(&call_id) {
                card.status = ToolStatus::NeedsSignIn { message, origin, busy };
            }
        }
        Action::ToolNeedsAccess { call_id, message, origins, tabs } => {
            if let Some(card) = chat.tool_mut(&call_id) {
                card.status = ToolStatus::NeedsAccess { message, origins, tabs };
            }
        }
        Action::ToolSignInStarted { call_id } => {
            if let Some(card) = chat.tool_mut(&call_id) {
                if let ToolStatus::NeedsSignIn { busy, .. } = &mut card.status {
                    *busy = true;
                }
            }
        }
        Action::ToolFinished { call_id, result, is_error, now_ms } => {
            finished(chat, &call_id, result, is_error, now_ms)
        }
        Action::ToolDenied { call_id } => {
            if let Some(card) = chat.tool_mut(&call_id) {
                card.status = ToolStatus::Denied;
            }
            let now_ms = chat.latest_ms();
            chat.record_call(&call_id, now_ms);
        }
        Action::ToolCancelled { call_id } => cancelled(chat, &call_id),
        Action::Activity(entry) => {
            chat.record(entry);
            // An app's or the person's call between turns is kept even if nothing follows.
            chat.save_if_idle();
        }
        _ => {} // another part's action (`reduce` sends none here)
    }
}

fn finished(chat: &mut ChatView, call_id: &str, result: String, is_error: bool, now_ms: u64) {
    let card = chat.tool_mut(call_id);
    // A call stopped or denied stays so: its late result never reached the model.
    if let Some(card) =
        card.filter(|c| !matches!(c.status, ToolStatus::Cancelled | ToolStatus::Denied))
    {
        card.duration_ms = card.started_ms.map(|start| now_ms.saturating_sub(start));
        if is_error {
            card.status = ToolStatus::Failed { message: result };
        } else {
            card.status = ToolStatus::Done;
            card.result = Some(result);
        }
    }
    chat.record_call(call_id, now_ms);
}

fn cancelled(chat: &mut ChatView, call_id: &str) {
    if let Some(card) = chat.tool_mut(call_id) {
        if matches!(
            card.status,
            ToolStatus::Confirm
                | ToolStatus::Running
                | ToolStatus::NeedsSignIn { .. }
                | ToolStatus::NeedsAccess { .. }
        ) {
            card.status = ToolStatus::Cancelled;
            if let Some(app) = card.app.as_mut() {
                app.cancelled = true;
            }
        }
    }
    let now_ms = chat.latest_ms();
    chat.record_call(call_id, now_ms);
}

pub(super) fn on_app(next: &mut State, action: Action) {
    let chat = &mut next.chat;
    match action {
        Action::AppShown { call_id, app } => {
            if let Some(card) = chat.tool_mut(&call_id) {
                card.app = Some(app);
            }
        }
        Action::AppLoaded { call_id, resource } => {
            // The same app shown again keeps one copy of its HTML.
            let mut kept = app_resources(chat.entries.iter().map(|e| &**e));
            let resource = shared_resource(&mut kept, resource);
            if let Some(app) = chat.tool_mut(&call_id).and_then(|c| c.app.as_mut()) {
                app.resource = Some(resource);
                app.error = None;
            }
            chat.save_if_idle();
        }
        Action::AppFailed { call_id, error } => {
            if let Some(app) = chat.tool_mut(&call_id).and_then(|c| c.app.as_mut()) {
                app.error = Some(error);
            }
            chat.save_if_idle();
        }
        Action::AppResult { call_id, result } => {
            // A result that comes after the person stopped the call is not the app's.
            match chat.tool_mut(&call_id).and_then(|c| c.app.as_mut()) {
                Some(app) if !app.cancelled => app.result = Some(result),
                _ => {}
            }
        }
        Action::OfferDraft(text) => {
            next.draft_epoch += 1;
            next.draft = Some(text);
        }
        Action::Elicitation(mut card) => {
            card.server_name = chat.tool(&card.call_id).map(|tool| tool.server_name.clone());
            chat.entries.push(Rc::new(Entry::Elicitation(card)))
        }
        Action::ElicitationAnswered { elicitation_id, answer } => {
            if let Some(card) = chat.elicitation_mut(&elicitation_id) {
                card.answer = Some(answer);
            }
        }
        _ => {}
    }
}
