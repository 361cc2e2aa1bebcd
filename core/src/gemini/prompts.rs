//! What GemiPanel itself says to the model (in English, which every model reads best), never
//! shown to the person as their message.

use super::wire::Content;

/// Asks for the summary a new chat starts from when the old one fills the context window.
pub const SUMMARY_PROMPT: &str = "Summarize our conversation so far so that it can be continued \
in a new chat that sees only your summary. Keep the goals, decisions, facts, names, numbers, \
code and open questions; leave out pleasantries. Write it in the language we have been using, \
as a compact Markdown list, without any preamble.";

/// Sent when the person asks a reply cut at the output limit to go on (no prefill on current
/// models: a request ending with a model turn is refused, so the request is a user turn).
pub const CONTINUE_PROMPT: &str =
    "Continue your previous answer exactly where it stopped, without repeating anything.";

/// The first turn of a chat continued from a summary: the person's next message joins it.
pub fn summary_seed(summary: &str) -> Content {
    Content::user_text(format!(
        "This chat continues an earlier conversation. Its summary, written by you:\n\n{}",
        summary.trim()
    ))
}
