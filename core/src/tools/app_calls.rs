//! An MCP App's call of a tool of its own server, decided by the worker under the person's
//! rules for the model's calls: a tool apps may not see or the person excluded is refused, and
//! one that would ask the person if the model called it ([`super::confirm::verdict`]) asks the
//! person in the app's card first.
//!
//! The worker decides, because an app's request reaches it through a page, and a page is not
//! trusted to check. The page shows the question and sends the call again with the person's
//! yes; [`AppCallAsks`] lets that yes count only for a call the worker asked about, with the
//! same tool and arguments, once, and not long after.

use std::collections::VecDeque;

use serde_json::Value;
use sha2::{Digest, Sha256};

use super::confirm::{self, CallFacts, Verdict};
use super::ToolFilter;
use crate::mcp::{Tool, Visibility};
use crate::text::Text;

/// Questions the worker keeps waiting for an answer; the oldest goes first past this.
pub const MAX_ASKS: usize = 64;
/// How long a question waits for the person's answer.
pub const ASK_LIFETIME_MS: u64 = 10 * 60 * 1000;

/// What the worker does with an app's call.
#[derive(Debug, Clone, PartialEq)]
pub enum AppCallVerdict {
    /// Not for apps (hidden from them, unknown to the server's list, or excluded by the
    /// person); says why.
    Refused(Text),
    /// The person is asked first; `because_of_page_content` when only the rule about web
    /// content in the chat asks.
    Ask {
        because_of_page_content: bool,
    },
    Run,
}

/// The server's rules for one tool, gathered by the worker from the settings.
#[derive(Debug, Clone, Copy)]
pub struct ServerRules<'a> {
    pub name: &'a str,
    /// The server's include and exclude lists. Only exclusion binds apps: an include list
    /// chooses what the model is offered, and an app's own tools are usually hidden from the
    /// model, so it never names them.
    pub filter: &'a ToolFilter,
    pub trusted: bool,
    pub always_allowed: bool,
    pub confirm_after_page_content: bool,
}

/// Decides an app's call of `name`; `tool` is the server's listing of it (`None`: not listed),
/// `page_content_seen` whether web content is in the chat the app is shown in.
pub fn verdict(
    rules: &ServerRules<'_>,
    name: &str,
    tool: Option<&Tool>,
    page_content_seen: bool,
) -> AppCallVerdict {
    let visible = tool.is_some_and(|t| t.is_visible_to(Visibility::App));
    if !visible {
        return AppCallVerdict::Refused(
            Text::new("errAppToolNotAllowed").arg(name).arg(rules.name),
        );
    }
    if rules.filter.exclude.iter().any(|t| t == name) {
        return AppCallVerdict::Refused(Text::new("errAppToolExcluded").arg(name).arg(rules.name));
    }
    let facts = CallFacts {
        trusted: rules.trusted,
        always_allowed: rules.always_allowed,
        read_only: tool.and_then(Tool::read_only),
        confirm_after_page_content: rules.confirm_after_page_content,
    };
    match confirm::verdict(&facts, page_content_seen) {
        Verdict::Run => AppCallVerdict::Run,
        Verdict::Ask { because_of_page_content } => AppCallVerdict::Ask { because_of_page_content },
    }
}

/// One call as asked about: its id and a digest of what it would run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AskedCall {
    call_id: String,
    digest: String,
}

impl AskedCall {
    pub fn new(call_id: &str, server_id: &str, tool: &str, arguments: &Value) -> AskedCall {
        let mut hash = Sha256::new();
        for part in [server_id, tool, &arguments.to_string()] {
            hash.update((part.len() as u64).to_le_bytes());
            hash.update(part.as_bytes());
        }
        let digest = hash.finalize().iter().map(|b| format!("{b:02x}")).collect();
        AskedCall { call_id: call_id.to_owned(), digest }
    }
}

/// The questions about app calls the worker asked and the person has not answered yet.
#[derive(Debug, Default)]
pub struct AppCallAsks {
    asked: VecDeque<(AskedCall, u64)>,
}

impl AppCallAsks {
    /// The worker asks the person about `call` at `now` (ms).
    pub fn ask(&mut self, call: AskedCall, now: u64) {
        self.asked.retain(|(asked, _)| asked.call_id != call.call_id);
        if self.asked.len() >= MAX_ASKS {
            self.asked.pop_front();
        }
        self.asked.push_back((call, now.saturating_add(ASK_LIFETIME_MS)));
    }

    /// The page says the person allowed `call`: true when it was asked about, exactly so, and
    /// not too long ago. The question is answered either way.
    pub fn allowed(&mut self, call: &AskedCall, now: u64) -> bool {
        self.asked.retain(|(_, until)| *until > now);
        let Some(at) = self.asked.iter().position(|(asked, _)| asked.call_id == call.call_id)
        else {
            return false;
        };
        self.asked.remove(at).is_some_and(|(asked, _)| asked == *call)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn tool(visibility: Option<&[&str]>, read_only: Option<bool>) -> Tool {
        let mut tool = json!({"name": "bump", "inputSchema": {"type": "object"}});
        if let Some(list) = visibility {
            tool["_meta"] = json!({"ui": {"visibility": list}});
        }
        if let Some(read_only) = read_only {
            tool["annotations"] = json!({"readOnlyHint": read_only});
        }
        serde_json::from_value(tool).unwrap()
    }

    fn rules(filter: &ToolFilter, trusted: bool, always: bool) -> ServerRules<'_> {
        ServerRules {
            name: "Apps",
            filter,
            trusted,
            always_allowed: always,
            confirm_after_page_content: true,
        }
    }

    #[test]
    fn tools_hidden_from_apps_or_unlisted_are_refused() {
        let open = ToolFilter::default();
        let model_only = tool(Some(&["model"]), None);
        for listed in [Some(&model_only), None] {
            let AppCallVerdict::Refused(why) =
                verdict(&rules(&open, true, false), "bump", listed, false)
            else {
                panic!("{listed:?}")
            };
            assert_eq!(why.key, "errAppToolNotAllowed");
        }
    }

    #[test]
    fn an_excluded_tool_is_refused_even_on_a_trusted_server() {
        let filter = ToolFilter { include: None, exclude: vec!["bump".into()] };
        let app_only = tool(Some(&["app"]), None);
        let AppCallVerdict::Refused(why) =
            verdict(&rules(&filter, true, true), "bump", Some(&app_only), false)
        else {
            panic!()
        };
        assert_eq!(why.key, "errAppToolExcluded");
        assert!(why.to_string().contains("bump"), "{why}");
    }

    #[test]
    fn an_include_list_for_the_model_does_not_hide_an_app_s_own_tools() {
        let filter = ToolFilter { include: Some(vec!["show_counter".into()]), exclude: Vec::new() };
        let app_only = tool(Some(&["app"]), None);
        assert_eq!(
            verdict(&rules(&filter, true, false), "bump", Some(&app_only), false),
            AppCallVerdict::Run
        );
    }

    #[test]
    fn the_model_s_confirmation_rule_decides_the_rest() {
        let open = ToolFilter::default();
        let writes = tool(None, None);
        let reads = tool(None, Some(true));
        let ask = |because| AppCallVerdict::Ask { because_of_page_content: because };
        // Untrusted: asks, read-only or not, web content or not.
        for (listed, seen) in [(&writes, false), (&reads, false), (&writes, true)] {
            assert_eq!(
                verdict(&rules(&open, false, false), "bump", Some(listed), seen),
                ask(false)
            );
        }
        // Trusted, or this tool always allowed: runs until web content is in the chat; then a
        // tool that may write asks again.
        for (trusted, always) in [(true, false), (false, true)] {
            let r = rules(&open, trusted, always);
            assert_eq!(verdict(&r, "bump", Some(&writes), false), AppCallVerdict::Run);
            assert_eq!(verdict(&r, "bump", Some(&writes), true), ask(true));
            assert_eq!(verdict(&r, "bump", Some(&reads), true), AppCallVerdict::Run);
        }
        let opted_out =
            ServerRules { confirm_after_page_content: false, ..rules(&open, true, false) };
        assert_eq!(verdict(&opted_out, "bump", Some(&writes), true), AppCallVerdict::Run);
    }

    #[test]
    fn a_yes_counts_only_for_the_call_asked_about_once_and_in_time() {
        let call = |id: &str, by: i64| AskedCall::new(id, "srv_a", "bump", &json!({ "by": by }));
        let mut asks = AppCallAsks::default();
        // Never asked: a page cannot answer first.
        assert!(!asks.allowed(&call("c1", 1), 0));
        asks.ask(call("c1", 1), 0);
        // Other arguments under the same id: no, and the question is gone.
        assert!(!asks.allowed(&call("c1", 2), 10));
        assert!(!asks.allowed(&call("c1", 1), 10));
        asks.ask(call("c1", 1), 20);
        assert!(asks.allowed(&call("c1", 1), 30));
        assert!(!asks.allowed(&call("c1", 1), 40), "once");
        // Too late.
        asks.ask(call("c2", 1), 100);
        assert!(!asks.allowed(&call("c2", 1), 100 + ASK_LIFETIME_MS));
        // Another server or tool is another call.
        asks.ask(call("c3", 1), 0);
        assert!(!asks.allowed(&AskedCall::new("c3", "srv_b", "bump", &json!({"by": 1})), 1));
    }

    #[test]
    fn a_flood_of_questions_keeps_the_newest() {
        let mut asks = AppCallAsks::default();
        let call = |i: usize| AskedCall::new(&format!("c{i}"), "srv_a", "bump", &json!({}));
        for i in 0..MAX_ASKS + 10 {
            asks.ask(call(i), 0);
        }
        assert_eq!(asks.asked.len(), MAX_ASKS);
        assert!(!asks.allowed(&call(0), 1));
        assert!(asks.allowed(&call(MAX_ASKS + 9), 1));
    }
}
