//! The chat's versions: where an edited or regenerated message parts the chat, and how the
//! shown path is cut and joined there.

use std::rc::Rc;

use gemipanel_core::branches::Path;
use gemipanel_core::chats::saved::messages_in;
use gemipanel_core::gemini::history;
use gemipanel_core::gemini::{Part, Turn};

use super::{BranchTail, Entry, SavedChat};

/// The message to send again when a version starts at a message: the history before it, the
/// parts it sent (text, attachments, context) and its text.
#[derive(Debug, Clone, PartialEq)]
pub struct BranchPoint {
    pub history: Vec<Turn>,
    pub parts: Vec<Part>,
    pub text: String,
}

/// The chat as it is shown, cut and joined at the person's messages.
pub(crate) struct ShownPath<'a> {
    pub(super) entries: &'a mut Vec<Rc<Entry>>,
    pub(super) history: &'a mut Rc<Vec<Turn>>,
}

impl ShownPath<'_> {
    fn entry_of(&self, message: usize) -> Option<usize> {
        self.entries
            .iter()
            .enumerate()
            .filter(|(_, e)| matches!(***e, Entry::User { .. }))
            .nth(message)
            .map(|(i, _)| i)
    }
}

impl Path for ShownPath<'_> {
    type Tail = BranchTail;

    fn messages(&self) -> usize {
        messages_in(self.entries.iter().map(|e| &**e))
    }

    fn cut(&mut self, at: usize) -> BranchTail {
        let Some(index) = self.entry_of(at) else { return BranchTail::default() };
        let mark = match &*self.entries[index] {
            Entry::User { mark, .. } => *mark,
            _ => None,
        };
        let entries = self
            .entries
            .split_off(index)
            .into_iter()
            .map(Rc::unwrap_or_clone)
            // A question only meant while its call ran is not kept.
            .filter(|e| !matches!(e, Entry::Elicitation(_)))
            .collect();
        let history =
            mark.and_then(|mark| mark.cut(Rc::make_mut(self.history))).unwrap_or_default();
        BranchTail { entries, history }
    }

    fn join(&mut self, tail: BranchTail) {
        self.entries.extend(tail.entries.into_iter().map(Rc::new));
        tail.history.join(Rc::make_mut(self.history));
    }
}

/// Chats saved before versions have no marks: they are told from the history when they can be.
pub(super) fn fill_marks(saved: &mut SavedChat) {
    let users = messages_in(&saved.entries);
    let known = saved.entries.iter().any(|e| matches!(e, Entry::User { mark: Some(_), .. }));
    if users == 0 || known {
        return;
    }
    let Some(marks) = history::derive_marks(&saved.history, users) else { return };
    let users = saved.entries.iter_mut().filter_map(|e| match e {
        Entry::User { mark, .. } => Some(mark),
        _ => None,
    });
    for (mark, derived) in users.zip(marks) {
        *mark = Some(derived);
    }
}
