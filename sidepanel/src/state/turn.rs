//! The model's turn: the person's message, the streamed reply, what the turn tells on the way
//! (notices, errors, usage) and its end; the chat's versions and summary.

use std::rc::Rc;

use gemipanel_core::chats::activity::{Activity, SentActivity};
use gemipanel_core::gemini::history::HistoryMark;

use super::{Action, ChatView, Entry, NoticeSignIn, SignInStep, State, View};

pub(super) const TITLE_CHARS: usize = 60;

/// The first line of the first message, shortened.
pub fn title_from(text: &str) -> String {
    let line = text.lines().map(str::trim).find(|l| !l.is_empty()).unwrap_or_default();
    let mut title: String = line.chars().take(TITLE_CHARS).collect();
    if line.chars().count() > TITLE_CHARS {
        title.push('…');
    }
    title
}

pub(super) fn on_sent(next: &mut State, action: Action) {
    let chat = &mut next.chat;
    match action {
        Action::UserSent { text, now_ms } => {
            if chat.title.is_empty() {
                chat.title = title_from(&text);
            }
            // The chat is idle when a message is sent: its history is the driver's.
            let mark = Some(HistoryMark::end_of(&chat.history));
            chat.entries.push(Rc::new(Entry::User {
                text,
                context: Vec::new(),
                app_context: Vec::new(),
                mark,
            }));
            next.attachments.clear();
            // The driver holds the files of the message now.
            next.files.clear();
            next.file_note = None;
            chat.busy = true;
            chat.updated_ms = now_ms;
            next.view = View::Chat;
        }
        Action::UserContext(labels) => {
            let last_user = chat.entries.iter().rposition(|e| matches!(**e, Entry::User { .. }));
            if let Some(Entry::User { context, .. }) =
                last_user.map(|i| Rc::make_mut(&mut chat.entries[i]))
            {
                context.clone_from(&labels);
            }
            if !labels.is_empty() {
                let at_ms = chat.updated_ms;
                chat.record(Activity::Sent(SentActivity { at_ms, sent: labels }));
            }
        }
        Action::AppContextSent(sent) => {
            let last_user = chat.entries.iter().rposition(|e| matches!(**e, Entry::User { .. }));
            if let Some(Entry::User { app_context, .. }) =
                last_user.map(|i| Rc::make_mut(&mut chat.entries[i]))
            {
                *app_context = sent;
            }
        }
        _ => {} // another part's action (`reduce` sends none here)
    }
}

pub(super) fn on_stream(chat: &mut ChatView, action: Action) {
    match action {
        // A summary being written is not a reply of this chat.
        Action::TextDelta(_) | Action::ThoughtDelta(_) if chat.summarizing => {}
        Action::TextDelta(text) => chat.streaming_reply().doc.push(&text),
        Action::ThoughtDelta(text) => chat.streaming_reply().thoughts.push(&text),
        Action::ModelTurnEnded { incomplete } => chat.end_streaming(incomplete),
        Action::Sources(sources) => {
            if let Some(reply) = chat.exchange_reply() {
                reply.sources = Some(sources);
            }
        }
        Action::Usage { turn, context_tokens } if !chat.summarizing => {
            chat.context_tokens = context_tokens;
            if let Some(reply) = chat.exchange_reply() {
                reply.usage = Some(turn);
            }
        }
        Action::Retrying { seconds, message, until_ms, retry, max } => {
            chat.end_streaming(false);
            chat.entries.push(Rc::new(Entry::Retrying { seconds, message, until_ms, retry, max }));
        }
        Action::Finished { code, text } => {
            chat.end_streaming(false);
            chat.entries.push(Rc::new(Entry::Finish { code, text }));
        }
        Action::Continued => {
            if matches!(chat.entries.last().map(|e| &**e), Some(Entry::Finish { .. })) {
                chat.entries.pop();
            }
            if let Some(Entry::Model(reply)) = chat.entries.last_mut().map(Rc::make_mut) {
                reply.streaming = true;
                reply.incomplete = false;
            }
            chat.busy = true;
        }
        Action::ToolsSent(sent) => chat.tools_sent = Some(sent),
        Action::TurnOver { history, now_ms } => {
            chat.end_streaming(false);
            chat.busy = false;
            chat.summarizing = false;
            chat.history = history;
            chat.updated_ms = now_ms;
            chat.save_epoch += 1;
        }
        _ => {}
    }
}

pub(super) fn on_notice(chat: &mut ChatView, action: Action) {
    match action {
        Action::Notice(text) => {
            chat.end_streaming(false);
            chat.entries.push(Rc::new(Entry::Notice { text, sign_in: None }));
        }
        Action::SignInNotice { text, server_id, server_name } => {
            chat.end_streaming(false);
            let step = SignInStep::Offered { problem: None, origin: None };
            let sign_in = Some(NoticeSignIn { server_id, server_name, step });
            chat.entries.push(Rc::new(Entry::Notice { text, sign_in }));
        }
        Action::NoticeSignIn { server_id, step } => chat.notice_sign_in(&server_id, step),
        Action::Failed(error) => {
            chat.end_streaming(false);
            chat.entries.push(Rc::new(Entry::Error(error)));
        }
        _ => {}
    }
}

pub(super) fn on_version(next: &mut State, action: Action) {
    let chat = &mut next.chat;
    match action {
        // Nothing branches or switches during a turn.
        Action::Branch { at } if !chat.busy => {
            let mut forks = std::mem::take(&mut chat.forks);
            forks.branch(&mut chat.path(), at);
            chat.forks = forks;
        }
        Action::SwitchVersion { at, to } if !chat.busy => {
            *chat = chat.switched(at, to);
            chat.save_epoch += 1;
        }
        Action::SetInstructions(instructions) => {
            chat.instructions = instructions.map(|i| i.trim().to_owned()).filter(|i| !i.is_empty());
            chat.save_if_idle();
        }
        Action::SummaryStarted => {
            chat.summarizing = true;
            chat.busy = true;
        }
        Action::Summarized { id, now_ms, summary, history } => {
            let from_title = chat.title.clone();
            let mut fresh = ChatView::new(id, now_ms);
            fresh.model = chat.model.clone();
            fresh.servers = chat.servers.clone();
            fresh.google_search = chat.google_search;
            fresh.thinking = chat.thinking;
            fresh.instructions = chat.instructions.clone();
            fresh.title = from_title.clone();
            fresh.history = history;
            fresh.busy = true;
            fresh.entries = vec![Rc::new(Entry::Summary { text: summary, from_title })];
            next.chat = fresh;
            next.view = View::Chat;
        }
        _ => {}
    }
}
