//! A chat's activity: every tool call made for it (by the model, by an app in it, or by the
//! person) and everything that left the browser with its turns besides the words (pages,
//! selections, files, resources). Kept with the chat, apart from the transcript: a version
//! that replaced a reply does not take what that reply's turn sent away from the record.

use serde::{Deserialize, Serialize};

use super::saved::{ToolCard, ToolStatus};
use crate::page::context::ContextLabel;

/// The most a chat keeps: the oldest go first.
pub const MAX_ACTIVITY: usize = 2_000;

/// Who asked for a tool call.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Asker {
    Model,
    /// The MCP App that the model's call of `tool` showed.
    App {
        tool: String,
    },
    Person,
}

/// How a call ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Outcome {
    Done,
    Failed,
    Denied,
    Cancelled,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ToolActivity {
    /// The call's id: one record per call, however often it is told.
    pub call_id: String,
    pub at_ms: u64,
    pub server: String,
    pub tool: String,
    pub asker: Asker,
    /// The arguments as JSON text.
    pub args: String,
    /// The size of what the call gave back, in bytes of text.
    #[serde(default)]
    pub result_bytes: Option<usize>,
    #[serde(default)]
    pub duration_ms: Option<u64>,
    pub outcome: Outcome,
}

/// What one message of the person's carried besides its words.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SentActivity {
    pub at_ms: u64,
    pub sent: Vec<ContextLabel>,
}

/// Externally tagged, like the transcript's entries.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Activity {
    Tool(ToolActivity),
    Sent(SentActivity),
}

impl Activity {
    pub fn at_ms(&self) -> u64 {
        match self {
            Activity::Tool(tool) => tool.at_ms,
            Activity::Sent(sent) => sent.at_ms,
        }
    }

    /// What makes two records the same one (a chat merged from two windows has both copies).
    fn identity(&self) -> (u64, &str) {
        match self {
            Activity::Tool(tool) => (0, tool.call_id.as_str()),
            Activity::Sent(sent) => (sent.at_ms, ""),
        }
    }

    /// The model's call that `card` shows, once it is over (`None` while it waits or runs).
    pub fn of_card(card: &ToolCard, now_ms: u64) -> Option<Activity> {
        let outcome = match &card.status {
            ToolStatus::Done => Outcome::Done,
            ToolStatus::Failed { .. } => Outcome::Failed,
            ToolStatus::Denied => Outcome::Denied,
            ToolStatus::Cancelled => Outcome::Cancelled,
            ToolStatus::Confirm
            | ToolStatus::Running
            | ToolStatus::NeedsAccess { .. }
            | ToolStatus::NeedsSignIn { .. } => return None,
        };
        let result_bytes = match &card.status {
            ToolStatus::Failed { message } => Some(message.len()),
            _ => card.result.as_ref().map(String::len),
        };
        Some(Activity::Tool(ToolActivity {
            call_id: card.call_id.clone(),
            at_ms: card.started_ms.unwrap_or(now_ms),
            server: card.server_name.clone(),
            tool: card.tool.clone(),
            asker: Asker::Model,
            args: card.args.clone(),
            result_bytes,
            duration_ms: card.duration_ms,
            outcome,
        }))
    }
}

/// Adds `entry` to `log`: a call told again replaces its record; the log stays in time order
/// and within [`MAX_ACTIVITY`].
pub fn record(log: &mut Vec<Activity>, entry: Activity) {
    if let Some(same) = log.iter_mut().find(|a| a.identity() == entry.identity()) {
        *same = entry;
        return;
    }
    let at = log.partition_point(|a| a.at_ms() <= entry.at_ms());
    log.insert(at, entry);
    if log.len() > MAX_ACTIVITY {
        log.drain(..log.len() - MAX_ACTIVITY);
    }
}

/// Both logs of a chat saved from two windows: every record of either, once.
pub fn merge(mut ours: Vec<Activity>, theirs: Vec<Activity>) -> Vec<Activity> {
    for entry in theirs {
        if !ours.iter().any(|a| a.identity() == entry.identity()) {
            record(&mut ours, entry);
        }
    }
    ours
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::page::context::ContextKind;

    fn call(id: &str, at_ms: u64, asker: Asker) -> Activity {
        Activity::Tool(ToolActivity {
            call_id: id.into(),
            at_ms,
            server: "everything".into(),
            tool: "echo".into(),
            asker,
            args: "{}".into(),
            result_bytes: Some(4),
            duration_ms: Some(3),
            outcome: Outcome::Done,
        })
    }

    fn sent(at_ms: u64) -> Activity {
        let label = ContextLabel {
            kind: ContextKind::Page,
            title: "Kyoto".into(),
            url: "https://example.com/".into(),
            server_id: None,
        };
        Activity::Sent(SentActivity { at_ms, sent: vec![label] })
    }

    #[test]
    fn records_keep_time_order_and_a_call_told_twice_is_one_record() {
        let mut log = Vec::new();
        record(&mut log, call("a", 20, Asker::Model));
        record(&mut log, sent(10));
        record(&mut log, call("b", 30, Asker::App { tool: "show".into() }));
        record(&mut log, call("a", 20, Asker::Model));
        assert_eq!(log.iter().map(Activity::at_ms).collect::<Vec<_>>(), [10, 20, 30]);
    }

    #[test]
    fn the_log_keeps_the_newest_records_within_its_bound() {
        let mut log = Vec::new();
        for i in 0..MAX_ACTIVITY as u64 + 5 {
            record(&mut log, call(&i.to_string(), i, Asker::Person));
        }
        assert_eq!(log.len(), MAX_ACTIVITY);
        assert_eq!(log[0].at_ms(), 5);
    }

    #[test]
    fn merging_two_windows_logs_keeps_every_record_once() {
        let ours = vec![sent(1), call("a", 2, Asker::Model)];
        let theirs = vec![sent(1), call("b", 3, Asker::Person), call("a", 2, Asker::Model)];
        let merged = merge(ours, theirs);
        assert_eq!(merged.iter().map(Activity::at_ms).collect::<Vec<_>>(), [1, 2, 3]);
    }

    #[test]
    fn the_saved_form_is_stable() {
        let json = serde_json::to_value(call("a", 2, Asker::App { tool: "show".into() })).unwrap();
        assert_eq!(json["tool"]["asker"], serde_json::json!({"app": {"tool": "show"}}));
        assert_eq!(json["tool"]["outcome"], "done");
        let back: Activity = serde_json::from_value(json).unwrap();
        assert_eq!(back, call("a", 2, Asker::App { tool: "show".into() }));
    }

    #[test]
    fn a_card_becomes_a_record_once_its_call_is_over() {
        let mut card = ToolCard::asked("c1", "srv", "everything", "echo", "{}".into(), None, true);
        assert_eq!(Activity::of_card(&card, 9), None);
        card.status = ToolStatus::Done;
        card.result = Some("hello".into());
        card.started_ms = Some(7);
        let Some(Activity::Tool(done)) = Activity::of_card(&card, 9) else { panic!() };
        assert_eq!((done.at_ms, done.result_bytes, done.outcome), (7, Some(5), Outcome::Done));
    }
}
