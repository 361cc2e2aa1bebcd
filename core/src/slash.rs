//! The composer's `/` menu: the panel's own commands and the prompts of every enabled server,
//! ranked as the person types, and a prompt's result turned into a draft the person can edit
//! before sending.

use crate::mcp::{GetPromptResult, Prompt, Role};
use crate::menu::{self, MenuEntry};

/// What the panel itself does from the menu.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PanelCommand {
    NewChat,
}

impl PanelCommand {
    pub const ALL: [PanelCommand; 1] = [PanelCommand::NewChat];

    /// What the person types after `/`.
    pub fn name(self) -> &'static str {
        match self {
            PanelCommand::NewChat => "new",
        }
    }

    /// The locale key of its description.
    pub fn description_key(self) -> &'static str {
        match self {
            PanelCommand::NewChat => "panelSlashNewChat",
        }
    }
}

/// One entry of the menu.
#[derive(Clone, Debug, PartialEq)]
pub enum SlashItem {
    Command(PanelCommand),
    Prompt { server_id: String, server_name: String, prompt: Box<Prompt> },
}

impl MenuEntry for SlashItem {
    /// What follows the `/`.
    fn name(&self) -> &str {
        match self {
            SlashItem::Command(command) => command.name(),
            SlashItem::Prompt { prompt, .. } => &prompt.name,
        }
    }

    fn label(&self) -> &str {
        match self {
            SlashItem::Command(command) => command.name(),
            SlashItem::Prompt { prompt, .. } => prompt.label(),
        }
    }

    fn description(&self) -> &str {
        match self {
            SlashItem::Command(_) => "",
            SlashItem::Prompt { prompt, .. } => prompt.description.as_deref().unwrap_or_default(),
        }
    }
}

/// The entries shown at most: a menu is for picking, not for reading a catalogue.
pub const MAX_SHOWN: usize = 50;

/// The text after `/` while the input is a command being typed: it starts with `/` and holds no
/// whitespace yet (a space ends the menu, as in a message that merely starts with a slash).
pub fn query(input: &str) -> Option<&str> {
    let rest = input.strip_prefix('/')?;
    (!rest.chars().any(char::is_whitespace)).then_some(rest)
}

/// The entries matching `query`, best first (see [`menu::ranked`]).
pub fn ranked<'a>(items: &'a [SlashItem], query: &str) -> Vec<&'a SlashItem> {
    menu::ranked(items, query, MAX_SHOWN)
}

/// What of a prompt's result goes into the composer.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PromptDraft {
    pub text: String,
    /// Parts not put in the draft (model turns, images, audio, links): the person is told.
    pub left_out: usize,
}

/// The person's side of a prompt: the text of its user messages and of the text resources they
/// embed, in order, a blank line apart.
pub fn draft(result: &GetPromptResult) -> PromptDraft {
    let mut parts = Vec::new();
    let mut left_out = 0;
    for message in &result.messages {
        let content = &message.content;
        let text = match (message.role, content.kind()) {
            (Role::User, "text") => content.text().map(str::to_owned),
            (Role::User, "resource") => content.0["resource"]["text"].as_str().map(str::to_owned),
            _ => None,
        };
        match text {
            Some(text) if !text.trim().is_empty() => parts.push(text),
            Some(_) => {}
            None => left_out += 1,
        }
    }
    PromptDraft { text: parts.join("\n\n"), left_out }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn prompt(name: &str, title: Option<&str>, description: &str) -> SlashItem {
        let prompt: Box<Prompt> = serde_json::from_value(json!({
            "name": name, "title": title, "description": description,
        }))
        .unwrap();
        SlashItem::Prompt { server_id: "srv_a".into(), server_name: "A".into(), prompt }
    }

    #[test]
    fn the_menu_is_open_only_while_a_command_is_typed() {
        assert_eq!(query("/"), Some(""));
        assert_eq!(query("/tra"), Some("tra"));
        assert_eq!(query("/travel Japan"), None);
        assert_eq!(query("/x\n"), None);
        assert_eq!(query("a/b"), None);
        assert_eq!(query(""), None);
    }

    #[test]
    fn names_that_start_with_the_query_come_first() {
        let items = vec![
            prompt("summarize", Some("Summary of a review"), "Condenses a text"),
            prompt("code_review", Some("Request Code Review"), "Asks for a review"),
            prompt("review", None, ""),
            prompt("plan", Some("Plan a trip"), "reviews nothing"),
            SlashItem::Command(PanelCommand::NewChat),
        ];
        let names: Vec<&str> = ranked(&items, "Rev").iter().map(|i| i.name()).collect();
        assert_eq!(names, ["review", "summarize", "code_review", "plan"]);
        let names: Vec<&str> = ranked(&items, "request").iter().map(|i| i.name()).collect();
        assert_eq!(names, ["code_review"]);
        assert_eq!(ranked(&items, "").len(), 5, "everything for a bare slash");
        assert!(ranked(&items, "zzz").is_empty());
    }

    #[test]
    fn the_menu_shows_a_bounded_number() {
        let items: Vec<SlashItem> =
            (0..MAX_SHOWN + 10).map(|n| prompt(&format!("p{n}"), None, "")).collect();
        assert_eq!(ranked(&items, "p").len(), MAX_SHOWN);
    }

    #[test]
    fn a_draft_holds_the_persons_text_and_counts_what_it_leaves_out() {
        let result: GetPromptResult = serde_json::from_value(json!({"messages": [
            {"role": "user", "content": {"type": "text", "text": "Plan three days in Kyoto."}},
            {"role": "assistant", "content": {"type": "text", "text": "Any interests?"}},
            {"role": "user", "content": {"type": "resource",
                "resource": {"uri": "test://notes", "mimeType": "text/plain", "text": "notes v1"}}},
            {"role": "user", "content": {"type": "image", "data": "AAAA", "mimeType": "image/png"}},
        ]}))
        .unwrap();
        let draft = draft(&result);
        assert_eq!(draft.text, "Plan three days in Kyoto.\n\nnotes v1");
        assert_eq!(draft.left_out, 2);
    }
}
