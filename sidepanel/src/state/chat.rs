//! The open chat: what it shows and holds, its saved form, and the small edits the reducer's
//! parts make to it.

use indexmap::IndexSet;
use std::rc::Rc;

use gemipanel_core::branches::Forks;
use gemipanel_core::chats::activity::{self, Activity};
use gemipanel_core::gemini::budget::ToolsSent;
use gemipanel_core::gemini::{ThinkingChoice, Turn};

use super::versions::{fill_marks, BranchPoint, ShownPath};
use super::{BranchTail, ElicitationCard, Entry, ModelReply, SavedChat, SignInStep, ToolCard};

/// The open chat.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct ChatView {
    pub id: String,
    pub title: String,
    pub created_ms: u64,
    pub updated_ms: u64,
    /// `None`: the default model from the settings.
    pub model: Option<String>,
    /// Server ids whose tools are on; `None`: each server's `enabled_by_default`.
    pub servers: Option<IndexSet<String>>,
    pub google_search: bool,
    pub thinking: ThinkingChoice,
    pub entries: Vec<Rc<Entry>>,
    pub busy: bool,
    /// The tokens the next request sends again, as of the last answer.
    pub context_tokens: u64,
    /// The model is writing the summary a new chat will start from (not saved).
    pub summarizing: bool,
    /// The conversation as Gemini sees it, as of the last finished turn.
    pub history: Rc<Vec<Turn>>,
    /// Bumped when the chat should be saved.
    pub save_epoch: u32,
    /// What the last model request of this chat declared (not saved: it is about this visit).
    pub tools_sent: Option<ToolsSent>,
    /// The versions not shown (edited or regenerated messages).
    pub forks: Forks<BranchTail>,
    /// This chat's own instructions.
    pub instructions: Option<String>,
    /// The stored revision this copy was read or saved at (`SavedChat::revision`).
    pub revision: u64,
    /// Every tool call made for the chat and what left the browser with it (`chats::activity`).
    pub activity: Rc<Vec<Activity>>,
}

/// What the transcript needs to know of a message of the person's.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct MessageInfo {
    /// (shown, count) when versions part at this message.
    pub versions: Option<(usize, usize)>,
    /// A new version can start here (the chat is idle and the message's mark is known).
    pub editable: bool,
}

impl ChatView {
    pub fn new(id: String, now_ms: u64) -> Self {
        Self { id, created_ms: now_ms, updated_ms: now_ms, ..Self::default() }
    }

    pub(crate) fn path(&mut self) -> ShownPath<'_> {
        ShownPath { entries: &mut self.entries, history: &mut self.history }
    }

    /// The person's messages on the shown path, in order.
    pub fn message_info(&self) -> Vec<MessageInfo> {
        self.entries
            .iter()
            .filter_map(|e| match &**e {
                Entry::User { mark, .. } => Some(*mark),
                _ => None,
            })
            .enumerate()
            .map(|(at, mark)| MessageInfo {
                versions: self.forks.at(at),
                editable: !self.busy && mark.is_some_and(|m| m.contents <= self.history.len()),
            })
            .collect()
    }

    /// What to send again for a new version from message `at`; `None` when it cannot be told.
    pub fn branch_point(&self, at: usize) -> Option<BranchPoint> {
        let (text, mark) = self
            .entries
            .iter()
            .filter_map(|e| match &**e {
                Entry::User { text, mark, .. } => Some((text, *mark)),
                _ => None,
            })
            .nth(at)?;
        let mut history = (*self.history).clone();
        let tail = mark?.cut(&mut history)?;
        Some(BranchPoint { history, parts: tail.sent_parts(), text: text.clone() })
    }

    /// Every tool call id of the chat, in every version.
    pub fn call_ids(&self) -> Vec<String> {
        let kept = self.forks.tails().into_iter().flat_map(|t| t.entries.iter());
        crate::transcript::call_ids(self.entries.iter().map(|e| &**e).chain(kept))
    }

    /// The chat with version `to` of message `at` shown (unchanged when there is none).
    pub fn switched(&self, at: usize, to: usize) -> ChatView {
        let mut next = self.clone();
        let mut forks = std::mem::take(&mut next.forks);
        forks.switch(&mut next.path(), at, to);
        next.forks = forks;
        next
    }

    /// Takes in the chat as stored. What this panel saved itself only moves the revision on.
    /// What holds another panel's turns is shown when idle; during a turn only when it holds
    /// everything shown here (its versions are then kept), else the save at the turn's end
    /// merges again.
    pub fn take_stored(&mut self, stored: SavedChat, merged: bool) {
        if stored.revision <= self.revision {
            return;
        }
        if !merged {
            self.revision = stored.revision;
        } else if !self.busy {
            *self = ChatView { tools_sent: self.tools_sent.take(), ..ChatView::from_saved(stored) };
        } else if stored.entries.len() <= self.entries.len()
            && stored.entries.iter().zip(&self.entries).all(|(a, b)| a == &**b)
        {
            self.forks = stored.forks;
            self.revision = stored.revision;
        }
    }

    pub fn to_saved(&self) -> SavedChat {
        SavedChat {
            id: self.id.clone(),
            title: self.title.clone(),
            created_ms: self.created_ms,
            updated_ms: self.updated_ms,
            model: self.model.clone(),
            servers: self.servers.clone(),
            google_search: self.google_search,
            thinking: self.thinking,
            context_tokens: self.context_tokens,
            history: (*self.history).clone(),
            entries: self
                .entries
                .iter()
                .filter(|e| !matches!(***e, Entry::Elicitation(_)))
                .map(|e| (**e).clone())
                .collect(),
            forks: self.forks.clone(),
            instructions: self.instructions.clone(),
            revision: self.revision,
            activity: (*self.activity).clone(),
            app_resources: Vec::new(),
        }
    }

    pub fn from_saved(mut saved: SavedChat) -> Self {
        fill_marks(&mut saved);
        saved.share_app_resources();
        Self {
            id: saved.id,
            title: saved.title,
            created_ms: saved.created_ms,
            updated_ms: saved.updated_ms,
            model: saved.model,
            servers: saved.servers,
            google_search: saved.google_search,
            thinking: saved.thinking,
            entries: saved.entries.into_iter().map(Rc::new).collect(),
            busy: false,
            context_tokens: saved.context_tokens,
            summarizing: false,
            history: Rc::new(saved.history),
            save_epoch: 0,
            tools_sent: None,
            forks: saved.forks,
            instructions: saved.instructions,
            revision: saved.revision,
            activity: Rc::new(saved.activity),
        }
    }

    pub(super) fn last_model_reply(&mut self) -> Option<&mut ModelReply> {
        match self.entries.last_mut().map(Rc::make_mut) {
            Some(Entry::Model(reply)) if reply.streaming => Some(reply),
            _ => None,
        }
    }

    pub(super) fn streaming_reply(&mut self) -> &mut ModelReply {
        if self.last_model_reply().is_none() {
            self.entries.push(Rc::new(Entry::Model(ModelReply::streaming())));
        }
        match self.entries.last_mut().map(Rc::make_mut) {
            Some(Entry::Model(reply)) => reply,
            _ => unreachable!("a streaming reply was just pushed"),
        }
    }

    pub(super) fn end_streaming(&mut self, incomplete: bool) {
        if let Some(reply) = self.last_model_reply() {
            reply.streaming = false;
            reply.incomplete |= incomplete;
        }
    }

    /// The last reply of the running exchange (since the person's last message).
    pub(super) fn exchange_reply(&mut self) -> Option<&mut ModelReply> {
        let start = self
            .entries
            .iter()
            .rposition(|e| matches!(**e, Entry::User { .. } | Entry::Summary { .. }))
            .map_or(0, |i| i + 1);
        let index =
            start + self.entries[start..].iter().rposition(|e| matches!(**e, Entry::Model(_)))?;
        match Rc::make_mut(&mut self.entries[index]) {
            Entry::Model(reply) => Some(reply),
            _ => None,
        }
    }

    pub(super) fn tool(&self, call_id: &str) -> Option<&ToolCard> {
        self.entries.iter().rev().find_map(|e| match &**e {
            Entry::Tool(card) if card.call_id == call_id => Some(card),
            _ => None,
        })
    }

    /// Saves now unless a turn runs: its end saves (what arrives after a turn, like an app's
    /// resource, would otherwise be lost with the panel).
    pub(super) fn save_if_idle(&mut self) {
        if !self.busy && !self.entries.is_empty() {
            self.save_epoch += 1;
        }
    }

    /// The latest time the chat knows of, for what is told without one.
    pub(super) fn latest_ms(&self) -> u64 {
        let last = self.activity.last().map_or(0, Activity::at_ms);
        self.updated_ms.max(last)
    }

    /// Keeps `entry` in the chat's activity.
    pub(super) fn record(&mut self, entry: Activity) {
        activity::record(Rc::make_mut(&mut self.activity), entry);
    }

    /// The record of call `call_id`, once it is over.
    pub(super) fn record_call(&mut self, call_id: &str, now_ms: u64) {
        if let Some(entry) = self.tool(call_id).and_then(|card| Activity::of_card(card, now_ms)) {
            self.record(entry);
        }
    }

    pub(super) fn notice_sign_in(&mut self, server_id: &str, step: SignInStep) {
        for entry in self.entries.iter_mut() {
            let offers = matches!(&**entry, Entry::Notice { sign_in: Some(s), .. } if s.server_id == server_id);
            if let (true, Entry::Notice { sign_in: Some(offer), .. }) =
                (offers, Rc::make_mut(entry))
            {
                offer.step = step.clone();
            }
        }
    }

    pub(super) fn tool_mut(&mut self, call_id: &str) -> Option<&mut ToolCard> {
        let index = self
            .entries
            .iter()
            .rposition(|e| matches!(&**e, Entry::Tool(card) if card.call_id == call_id))?;
        match Rc::make_mut(&mut self.entries[index]) {
            Entry::Tool(card) => Some(card),
            _ => None,
        }
    }

    pub(super) fn elicitation_mut(&mut self, elicitation_id: &str) -> Option<&mut ElicitationCard> {
        let index = self.entries.iter().rposition(
            |e| matches!(&**e, Entry::Elicitation(c) if c.elicitation_id == elicitation_id),
        )?;
        match Rc::make_mut(&mut self.entries[index]) {
            Entry::Elicitation(card) => Some(card),
            _ => None,
        }
    }
}
