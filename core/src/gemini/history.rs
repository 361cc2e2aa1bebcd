//! Cutting a chat's history where a message of the person's began, for versions
//! (`core::branches`): what the model had seen before the message, and what followed it.
//!
//! A message usually adds a user content; after a turn that ended without an answer (an error,
//! Stop) it joins the user content left at the end instead (`Chat` never sends two user turns
//! in a row). A [`HistoryMark`] says both: how many contents there were, and how many parts the
//! last of them had.

use serde::{Deserialize, Serialize};

use super::signatures::Turn;
use super::wire::{Part, ROLE_MODEL};

/// The history as it was before a message: its first `contents` contents, the last of them
/// with its first `parts` parts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct HistoryMark {
    pub contents: usize,
    pub parts: usize,
}

/// What followed a mark: parts the message added to the last content, then later contents.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct HistoryTail {
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub more_parts: Vec<Part>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub turns: Vec<Turn>,
}

impl HistoryMark {
    /// The end of `history` now: where the next message begins.
    pub fn end_of(history: &[Turn]) -> Self {
        Self { contents: history.len(), parts: history.last().map_or(0, |t| t.parts.len()) }
    }

    /// Cuts `history` at the mark and returns what followed; `None` (nothing cut) when the
    /// history is shorter than the mark says.
    pub fn cut(&self, history: &mut Vec<Turn>) -> Option<HistoryTail> {
        if self.contents > history.len() {
            return None;
        }
        let turns = history.split_off(self.contents);
        let more_parts = match history.last_mut() {
            Some(last) if last.parts.len() > self.parts => last.parts.split_off(self.parts),
            _ => Vec::new(),
        };
        Some(HistoryTail { more_parts, turns })
    }

    /// The history before the mark, leaving `history` as it is.
    pub fn before(&self, history: &[Turn]) -> Option<Vec<Turn>> {
        let mut copy = history.to_vec();
        self.cut(&mut copy)?;
        Some(copy)
    }
}

impl HistoryTail {
    /// Puts the tail back on a history cut at its mark.
    pub fn join(self, history: &mut Vec<Turn>) {
        if !self.more_parts.is_empty() {
            match history.last_mut() {
                Some(last) if last.role.as_deref() != Some(ROLE_MODEL) => {
                    last.parts.extend(self.more_parts)
                }
                _ => history.push(Turn::user(self.more_parts)),
            }
        }
        history.extend(self.turns);
    }

    /// The parts the message at the start of the tail sent (its text, attachments and the
    /// context that went with it), to send them again.
    pub fn sent_parts(&self) -> Vec<Part> {
        if !self.more_parts.is_empty() {
            return self.more_parts.clone();
        }
        match self.turns.first() {
            Some(first) if first.role.as_deref() != Some(ROLE_MODEL) => first.parts.clone(),
            _ => Vec::new(),
        }
    }
}

/// The parts of a message sent again with its text edited: the part holding the old text
/// takes the new one; attachments and context stay. Without such a part the text is added.
pub fn edited_parts(sent: &[Part], old_text: &str, new_text: &str) -> Vec<Part> {
    let mut parts = sent.to_vec();
    match parts.iter_mut().rev().find(|p| p.text.as_deref() == Some(old_text)) {
        Some(part) => part.text = Some(new_text.to_owned()),
        None => parts.push(Part::text(new_text)),
    }
    parts
}

/// Marks for messages saved before marks were kept: the k-th message began at the k-th user
/// content holding more than function responses. `None` when that count does not match the
/// messages shown (a message joined an unanswered one): then none can be told.
pub fn derive_marks(history: &[Turn], messages: usize) -> Option<Vec<HistoryMark>> {
    let marks: Vec<HistoryMark> = history
        .iter()
        .enumerate()
        .filter(|(_, t)| {
            t.role.as_deref() != Some(ROLE_MODEL)
                && t.parts.iter().any(|p| p.function_response.is_none())
        })
        .map(|(i, _)| HistoryMark {
            contents: i,
            parts: i.checked_sub(1).map_or(0, |prev| history[prev].parts.len()),
        })
        .collect();
    (marks.len() == messages).then_some(marks)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::gemini::{Content, FunctionResponse};

    fn user(text: &str) -> Turn {
        Turn::new(Content::user_text(text), None)
    }

    fn model(text: &str) -> Turn {
        let content = Content { role: Some(ROLE_MODEL.into()), parts: vec![Part::text(text)] };
        Turn::new(content, Some("gemini-3.8-flash".into()))
    }

    fn texts(history: &[Turn]) -> Vec<String> {
        history
            .iter()
            .map(|t| t.parts.iter().filter_map(|p| p.text.clone()).collect::<Vec<_>>().join("+"))
            .collect()
    }

    #[test]
    fn a_cut_and_a_join_give_back_the_history() {
        let mut history = vec![user("q1"), model("a1")];
        let mark = HistoryMark::end_of(&history);
        history.extend([user("q2"), model("a2")]);
        let whole = history.clone();
        let tail = mark.cut(&mut history).unwrap();
        assert_eq!(texts(&history), ["q1", "a1"]);
        assert_eq!(tail.sent_parts(), vec![Part::text("q2")]);
        tail.join(&mut history);
        assert_eq!(history, whole);
        assert_eq!(mark.before(&whole).unwrap(), whole[..2].to_vec());
        let far = HistoryMark { contents: 9, parts: 0 };
        assert_eq!(far.before(&whole), None, "a mark past the history cuts nothing");
    }

    #[test]
    fn a_message_that_joined_an_unanswered_one_is_cut_from_it() {
        // "q1" failed (no answer); "q2" joined its user content.
        let mut history = vec![user("q1")];
        let mark = HistoryMark::end_of(&history);
        history[0].parts.push(Part::text("q2"));
        history.push(model("a2"));
        let whole = history.clone();
        let tail = mark.cut(&mut history).unwrap();
        assert_eq!(texts(&history), ["q1"]);
        assert_eq!(tail.sent_parts(), vec![Part::text("q2")]);
        tail.join(&mut history);
        assert_eq!(history, whole);
    }

    #[test]
    fn an_edit_replaces_the_text_and_keeps_what_came_with_it() {
        let sent = vec![
            Part::text("[Context from the chart app]\nrows: 3"),
            Part::inline_data("image/png", "iVBORw0KGgo="),
            Part::text("What is this?"),
        ];
        let edited = edited_parts(&sent, "What is this?", "What colour is it?");
        assert_eq!(edited[2].text.as_deref(), Some("What colour is it?"));
        assert_eq!(edited[..2], sent[..2]);
        assert_eq!(edited_parts(&[], "x", "y"), vec![Part::text("y")]);
    }

    #[test]
    fn marks_of_old_chats_are_derived_when_they_can_be() {
        let response = Turn::new(
            Content {
                role: Some("user".into()),
                parts: vec![Part::function_response(FunctionResponse {
                    id: None,
                    name: "f".into(),
                    response: serde_json::json!({}),
                    parts: vec![],
                })],
            },
            None,
        );
        let history =
            vec![user("q1"), model("call"), response, model("a1"), user("q2"), model("a2")];
        let marks = derive_marks(&history, 2).unwrap();
        assert_eq!(
            marks,
            [HistoryMark { contents: 0, parts: 0 }, HistoryMark { contents: 4, parts: 1 }]
        );
        let tail = marks[1].cut(&mut history.clone()).unwrap();
        assert_eq!(tail.sent_parts(), vec![Part::text("q2")]);
        assert_eq!(derive_marks(&history, 3), None, "three messages, two user turns: unknown");
    }
}
