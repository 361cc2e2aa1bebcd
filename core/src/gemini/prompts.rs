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

/// `systemInstruction`: the person's instructions for every chat, then the chat's own, each
/// left out when blank (https://ai.google.dev/gemini-api/docs/text-generation#system-instructions).
pub fn system_instruction(every_chat: Option<&str>, this_chat: Option<&str>) -> Option<String> {
    let parts: Vec<&str> = [every_chat, this_chat]
        .into_iter()
        .flatten()
        .map(str::trim)
        .filter(|t| !t.is_empty())
        .collect();
    (!parts.is_empty()).then(|| parts.join("\n\n"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn instructions_for_every_chat_come_first_and_blank_ones_are_left_out() {
        assert_eq!(system_instruction(None, None), None);
        assert_eq!(system_instruction(Some("  "), Some("\n")), None);
        assert_eq!(system_instruction(Some("Be brief."), None).as_deref(), Some("Be brief."));
        assert_eq!(system_instruction(None, Some(" Use metric. ")).as_deref(), Some("Use metric."));
        assert_eq!(
            system_instruction(Some("Be brief."), Some("Use metric.")).as_deref(),
            Some("Be brief.\n\nUse metric.")
        );
    }
}
