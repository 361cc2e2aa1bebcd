//! Thought signatures as https://ai.google.dev/gemini-api/docs/thought-signatures requires them.
//!
//! Every signature is kept verbatim on the part it came with, and each model turn remembers the
//! model that wrote it ([`Turn::author`]). A request then carries:
//! - the signatures of turns written by the model it goes to (a routed id counts as the model
//!   that serves it), exactly as received;
//! - no signature of another model's turn: signatures are the minting model's own ("Corrupted
//!   thought signature." is what another model answers);
//! - in the current turn (from the last user content holding text or data, not only function
//!   responses), on the first `functionCall` part of each step left without its signature, the
//!   dummy the docs give for history the model did not produce
//!   (https://ai.google.dev/gemini-api/docs/thought-signatures#faqs), since a missing one is
//!   refused with 400 ("Function call is missing a thought_signature in functionCall parts").
//!
//! Turns saved before authors were kept have none: their signatures are sent as they are.

use serde::{Deserialize, Serialize};

use super::family::Family;
use super::routing::served_by;
use super::wire::{Content, Part};

/// The dummy signature for function calls the model did not produce.
pub const SKIP_VALIDATOR: &str = "skip_thought_signature_validator";

/// A content of the history as a chat keeps it: the content the API sees, and for a model turn
/// the model that wrote it. Stored with the chat; old saved chats (plain contents) read as turns
/// without an author.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct Turn {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub role: Option<String>,
    #[serde(default)]
    pub parts: Vec<Part>,
    /// The model id a model turn was asked of.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub author: Option<String>,
}

impl Turn {
    pub fn new(content: Content, author: Option<String>) -> Self {
        Turn { role: content.role, parts: content.parts, author }
    }

    /// A user content of the person's (or of function responses).
    pub fn user(parts: Vec<Part>) -> Self {
        Turn { role: Some(super::wire::ROLE_USER.into()), parts, author: None }
    }

    pub fn into_parts(self) -> (Content, Option<String>) {
        (Content { role: self.role, parts: self.parts }, self.author)
    }
}

/// Whether two model ids sign alike: the same model serves both.
pub fn same_signer(a: &str, b: &str) -> bool {
    served_by(a).eq_ignore_ascii_case(served_by(b))
}

/// The contents of a request to `target` (of `family`), from the history and the author of each
/// content (`authors[i]` for `history[i]`; missing entries count as unknown).
pub fn contents_for(
    history: &[Content],
    authors: &[Option<String>],
    target: &str,
    family: &Family,
) -> Vec<Content> {
    let mut contents = history.to_vec();
    for (content, author) in contents.iter_mut().zip(authors) {
        let foreign = author.as_deref().is_some_and(|a| !same_signer(a, target));
        if content.is_model() && foreign {
            for part in &mut content.parts {
                part.thought_signature = None;
            }
        }
    }
    if family.signatures_required {
        let start = current_turn_start(&contents);
        for content in contents.iter_mut().skip(start).filter(|c| c.is_model()) {
            let first_call = content.parts.iter_mut().find(|p| p.function_call.is_some());
            if let Some(part) = first_call.filter(|p| p.thought_signature.is_none()) {
                part.thought_signature = Some(SKIP_VALIDATOR.to_owned());
            }
        }
    }
    contents
}

/// Where the API's validation starts: the last user content with standard content (anything
/// but function responses), walking back from the newest.
pub fn current_turn_start(contents: &[Content]) -> usize {
    contents
        .iter()
        .rposition(|c| !c.is_model() && c.parts.iter().any(|p| p.function_response.is_none()))
        .unwrap_or(0)
}
