//! The view's own tools: an app that declared `appCapabilities.tools` is asked for them
//! (`tools/list`) once it has initialized and again after each
//! `notifications/tools/list_changed`, and the host calls them (`tools/call`).
//!
//! These are the host's requests to the app: numbered by the host, answered by id, each with a
//! deadline, so an app that answers with a wrong id, answers nonsense or never answers costs
//! one error and nothing else. What an app lists is bounded and checked before the chat offers
//! it to the model.

use std::collections::BTreeMap;

use serde_json::{Map, Value};

use super::protocol::{self, AppCapabilities, CallViewToolParams};
use crate::decode::{without_strings, Lenient};
use crate::jsonrpc::{ErrorObject, Id};
use crate::mcp::{CallToolResult, ListToolsResult, Tool};

/// How long the result of a call that shows an app waits for the app to say what tools it
/// offers, so the request after the call can offer them. `tests/bench/app_load.mjs` measured
/// an app's start (tool result to `initialized`, a 400 KB app) at 82 ms p50 and 257 ms at
/// the slowest of 20 loads on a busy two-core machine; about four times that, so a slow start
/// still makes it, while an app that never starts holds its turn no more than a second.
pub const SHOWN_APP_TOOLS_WAIT_MS: u64 = 1_000;

/// Tools of one app offered to the model; the rest of a longer list is left out.
pub const MAX_TOOLS: usize = 32;
/// The largest tool definition (name, description, schemas) offered, in bytes of JSON.
pub const MAX_TOOL_BYTES: usize = 32 * 1024;
/// Calls of the host to one app waiting at once.
pub const MAX_CALLS: usize = 8;
/// How long an app has to list its tools.
pub const LIST_TIMEOUT_MS: u64 = 10_000;
/// How long an app has to answer a call of one of its tools.
pub const CALL_TIMEOUT_MS: u64 = 60_000;

/// One call of the host to one of the app's tools (the JSON-RPC id the host gave it).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ViewCall(pub i64);

/// What the host asked, by id.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Asked {
    List,
    Call,
}

/// An answer of the app matched to the host's request (or a request that ran out of time).
#[derive(Debug, PartialEq)]
// Short-lived, one at a time: boxing the result would only add an allocation.
#[allow(clippy::large_enum_variant)]
pub(super) enum Answered {
    /// The app's tools, and what was left out of its list, for the app log.
    Listed {
        tools: Vec<Tool>,
        warnings: Vec<String>,
    },
    /// The list could not be had; the tools offered before stay.
    ListFailed(String),
    Called {
        call: ViewCall,
        outcome: Result<CallToolResult, String>,
    },
}

#[derive(Default)]
pub(super) struct ViewTools {
    /// The app declared tools in `ui/initialize`.
    offered: bool,
    pending: BTreeMap<i64, (Asked, u64)>,
    /// A `list_changed` came while a list was being asked for: ask again after it.
    relist: bool,
    /// The names of the tools last listed: only these may be called.
    names: Vec<String>,
}

impl ViewTools {
    pub fn declared(&mut self, capabilities: &AppCapabilities) {
        self.offered = capabilities.tools.is_some();
    }

    /// The app declared tools of its own (they are listed once it has initialized).
    pub fn offered(&self) -> bool {
        self.offered
    }

    /// A `tools/list` request with id `id`, unless the app offers no tools or a list is
    /// already asked for (then it is asked again once that one is answered).
    pub fn list(&mut self, id: i64, now: u64) -> Option<Value> {
        if !self.offered {
            return None;
        }
        if self.pending.values().any(|(asked, _)| *asked == Asked::List) {
            self.relist = true;
            return None;
        }
        self.pending.insert(id, (Asked::List, now.saturating_add(LIST_TIMEOUT_MS)));
        Some(protocol::request(Id::Number(id), "tools/list", Value::Object(Map::new())))
    }

    /// A `tools/call` request with id `id`, or why it cannot be made.
    pub fn call(
        &mut self,
        id: i64,
        name: &str,
        arguments: Map<String, Value>,
        now: u64,
    ) -> Result<(ViewCall, Value), String> {
        if !self.offered {
            return Err("this app offers no tools".into());
        }
        if !self.names.iter().any(|n| n == name) {
            return Err(format!("the app does not offer a tool named {name}"));
        }
        let calls = self.pending.values().filter(|(asked, _)| *asked == Asked::Call).count();
        if calls >= MAX_CALLS {
            return Err("the app is busy with other calls".into());
        }
        self.pending.insert(id, (Asked::Call, now.saturating_add(CALL_TIMEOUT_MS)));
        let params = CallViewToolParams { name: name.to_owned(), arguments };
        let params = serde_json::to_value(params).unwrap_or(Value::Null);
        Ok((ViewCall(id), protocol::request(Id::Number(id), "tools/call", params)))
    }

    /// The app's answer to request `id`; `None` when the host asked nothing under that id.
    pub fn answer(&mut self, id: &Id, outcome: Result<Value, ErrorObject>) -> Option<Answered> {
        let Id::Number(number) = id else { return None };
        let (asked, _) = self.pending.remove(number)?;
        Some(match asked {
            Asked::List => match outcome {
                Ok(result) => {
                    let (tools, warnings) = checked(result);
                    self.names = tools.iter().map(|t| t.name.clone()).collect();
                    Answered::Listed { tools, warnings }
                }
                Err(error) => Answered::ListFailed(format!("tools/list failed: {}", error.message)),
            },
            Asked::Call => {
                let outcome = outcome.map_err(|error| error.message).and_then(|result| {
                    serde_json::from_value::<CallToolResult>(result).map_err(|e| {
                        format!(
                            "the app's result could not be read: {}",
                            without_strings(&e.to_string())
                        )
                    })
                });
                Answered::Called { call: ViewCall(*number), outcome }
            }
        })
    }

    /// Whether a `list_changed` arrived while the last list was asked for.
    pub fn take_relist(&mut self) -> bool {
        std::mem::take(&mut self.relist)
    }

    /// When the earliest request runs out of time.
    pub fn deadline(&self) -> Option<u64> {
        self.pending.values().map(|(_, at)| *at).min()
    }

    /// The requests whose time ran out by `now`, answered as failures.
    pub fn expire(&mut self, now: u64) -> Vec<Answered> {
        let expired: Vec<i64> =
            self.pending.iter().filter(|(_, (_, at))| *at <= now).map(|(id, _)| *id).collect();
        let mut answers = Vec::new();
        for id in expired {
            let Some((asked, _)) = self.pending.remove(&id) else { continue };
            answers.push(match asked {
                Asked::List => {
                    Answered::ListFailed("the app did not list its tools in time".into())
                }
                Asked::Call => Answered::Called {
                    call: ViewCall(id),
                    outcome: Err("the app did not answer in time".into()),
                },
            });
        }
        answers
    }

    /// The app goes: every call waiting for it fails.
    pub fn close(&mut self, why: &str) -> Vec<Answered> {
        let pending = std::mem::take(&mut self.pending);
        self.names.clear();
        pending
            .into_iter()
            .filter(|(_, (asked, _))| *asked == Asked::Call)
            .map(|(id, _)| Answered::Called { call: ViewCall(id), outcome: Err(why.to_owned()) })
            .collect()
    }
}

/// The tools of a `tools/list` answer that may be offered: readable, named, each name once, no
/// larger than [`MAX_TOOL_BYTES`], at most [`MAX_TOOLS`]; and a line for each kind left out.
fn checked(result: Value) -> (Vec<Tool>, Vec<String>) {
    let list: ListToolsResult = match serde_json::from_value(result) {
        Ok(list) => list,
        Err(e) => {
            let why = without_strings(&e.to_string());
            return (Vec::new(), vec![format!("tools/list answer could not be read: {why}")]);
        }
    };
    let (mut unreadable, mut duplicate, mut large, mut over) = (0, 0, 0, 0);
    let mut tools: Vec<Tool> = Vec::new();
    for entry in list.tools {
        let Lenient::Valid(tool) = entry else {
            unreadable += 1;
            continue;
        };
        if tool.name.trim().is_empty() {
            unreadable += 1;
        } else if tools.iter().any(|t| t.name == tool.name) {
            duplicate += 1;
        } else if serde_json::to_vec(&tool).map_or(usize::MAX, |b| b.len()) > MAX_TOOL_BYTES {
            large += 1;
        } else if tools.len() == MAX_TOOLS {
            over += 1;
        } else {
            tools.push(tool);
        }
    }
    let warnings = [
        (unreadable, "could not be read".to_owned()),
        (duplicate, "repeated a name listed before".to_owned()),
        (large, format!("were larger than {} KB", MAX_TOOL_BYTES / 1024)),
        (over, format!("were beyond the first {MAX_TOOLS}")),
    ]
    .into_iter()
    .filter(|(count, _)| *count > 0)
    .map(|(count, why)| format!("tools/list: {count} tools left out that {why}"))
    .collect();
    (tools, warnings)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn offering() -> ViewTools {
        let mut tools = ViewTools::default();
        tools.declared(&serde_json::from_value(json!({"tools": {"listChanged": true}})).unwrap());
        tools
    }

    fn tool(name: &str) -> Value {
        json!({"name": name, "description": "d", "inputSchema": {"type": "object"}})
    }

    fn listed(tools: &mut ViewTools, result: Value) -> (Vec<Tool>, Vec<String>) {
        let request = tools.list(7, 0).unwrap();
        assert_eq!(request["method"], "tools/list");
        match tools.answer(&Id::Number(7), Ok(result)) {
            Some(Answered::Listed { tools, warnings }) => (tools, warnings),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn an_app_without_the_capability_is_never_asked() {
        let mut tools = ViewTools::default();
        tools.declared(&AppCapabilities::default());
        assert_eq!(tools.list(1, 0), None);
        assert!(tools.call(2, "x", Map::new(), 0).is_err());
        assert_eq!(tools.deadline(), None);
    }

    #[test]
    fn a_list_is_read_and_its_tools_may_be_called() {
        let mut tools = offering();
        let (listed, warnings) = listed(&mut tools, json!({"tools": [tool("get_selection")]}));
        assert_eq!(listed[0].name, "get_selection");
        assert!(warnings.is_empty());
        let (call, request) = tools.call(8, "get_selection", Map::new(), 100).unwrap();
        assert_eq!(
            request,
            json!({"jsonrpc": "2.0", "id": 8, "method": "tools/call",
                   "params": {"name": "get_selection", "arguments": {}}})
        );
        assert_eq!(tools.deadline(), Some(100 + CALL_TIMEOUT_MS));
        let answer =
            tools.answer(&Id::Number(8), Ok(json!({"content": [{"type": "text", "text": "B2"}]})));
        let Some(Answered::Called { call: answered, outcome: Ok(result) }) = answer else {
            panic!("{answer:?}")
        };
        assert_eq!(answered, call);
        assert_eq!(result.content.len(), 1);
        assert_eq!(tools.deadline(), None);
    }

    #[test]
    fn a_tool_it_did_not_list_is_not_called() {
        let mut tools = offering();
        listed(&mut tools, json!({"tools": [tool("a")]}));
        assert!(tools
            .call(1, "b", Map::new(), 0)
            .unwrap_err()
            .contains("does not offer a tool named b"));
    }

    #[test]
    fn answers_under_ids_the_host_never_used_are_ignored() {
        let mut tools = offering();
        tools.list(3, 0).unwrap();
        let stray = json!({"tools": [tool("evil")]});
        assert_eq!(tools.answer(&Id::Number(4), Ok(stray.clone())), None);
        assert_eq!(tools.answer(&Id::String("3".into()), Ok(stray)), None);
        // The real answer is still awaited, and is read once.
        assert!(tools.answer(&Id::Number(3), Ok(json!({"tools": []}))).is_some());
        assert_eq!(tools.answer(&Id::Number(3), Ok(json!({"tools": []}))), None);
    }

    #[test]
    fn a_huge_list_is_cut_and_what_is_left_out_is_said() {
        let mut tools = offering();
        let mut entries: Vec<Value> = (0..10_000).map(|i| tool(&format!("t{i}"))).collect();
        entries.insert(0, json!({"name": 5}));
        entries.insert(1, tool("t0"));
        entries.insert(2, json!({"name": "big", "description": "x".repeat(MAX_TOOL_BYTES)}));
        entries.insert(3, json!({"name": "  "}));
        let (listed, warnings) = listed(&mut tools, json!({"tools": entries}));
        assert_eq!(listed.len(), MAX_TOOLS);
        assert_eq!(listed[0].name, "t0");
        assert_eq!(
            warnings,
            [
                "tools/list: 2 tools left out that could not be read",
                "tools/list: 1 tools left out that repeated a name listed before",
                "tools/list: 1 tools left out that were larger than 32 KB",
                "tools/list: 9968 tools left out that were beyond the first 32",
            ]
        );
    }

    #[test]
    fn malformed_answers_are_errors_not_tools() {
        let mut tools = offering();
        let (offered, warnings) = listed(&mut tools, json!({"tools": "all of them"}));
        assert!(offered.is_empty());
        assert!(warnings[0].starts_with("tools/list answer could not be read"), "{warnings:?}");
        // A string value in the answer is never quoted back.
        let (_, warnings) = listed_again(&mut tools, json!({"tools": "<script>"}));
        assert!(!warnings[0].contains("<script>"), "{warnings:?}");

        let mut tools = offering();
        listed(&mut tools, json!({"tools": [tool("t")]}));
        tools.call(9, "t", Map::new(), 0).unwrap();
        let answer = tools.answer(&Id::Number(9), Ok(json!({"content": "not a list"})));
        assert!(
            matches!(answer, Some(Answered::Called { outcome: Err(ref e), .. })
            if e.starts_with("the app's result could not be read")),
            "{answer:?}"
        );
        tools.call(10, "t", Map::new(), 0).unwrap();
        let thrown = ErrorObject::new(-32603, "Tool t is disabled");
        let answer = tools.answer(&Id::Number(10), Err(thrown));
        assert!(
            matches!(answer, Some(Answered::Called { outcome: Err(ref e), .. })
            if e == "Tool t is disabled"),
            "{answer:?}"
        );
        let refused = tools.answer(&Id::Number(11), Ok(json!({})));
        assert_eq!(refused, None);
    }

    fn listed_again(tools: &mut ViewTools, result: Value) -> (Vec<Tool>, Vec<String>) {
        let id = 100 + tools.names.len() as i64;
        tools.list(id, 0).unwrap();
        match tools.answer(&Id::Number(id), Ok(result)) {
            Some(Answered::Listed { tools, warnings }) => (tools, warnings),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn an_app_that_never_answers_runs_out_of_time() {
        let mut tools = offering();
        tools.list(1, 0).unwrap();
        assert_eq!(tools.deadline(), Some(LIST_TIMEOUT_MS));
        assert!(tools.expire(LIST_TIMEOUT_MS - 1).is_empty());
        assert_eq!(
            tools.expire(LIST_TIMEOUT_MS),
            [Answered::ListFailed("the app did not list its tools in time".into())]
        );
        // A late answer is not taken.
        assert_eq!(tools.answer(&Id::Number(1), Ok(json!({"tools": [tool("late")]}))), None);

        let mut tools = offering();
        listed(&mut tools, json!({"tools": [tool("t")]}));
        for id in 0..MAX_CALLS as i64 {
            tools.call(20 + id, "t", Map::new(), 1000).unwrap();
        }
        assert_eq!(
            tools.call(99, "t", Map::new(), 1000).unwrap_err(),
            "the app is busy with other calls"
        );
        let expired = tools.expire(1000 + CALL_TIMEOUT_MS);
        assert_eq!(expired.len(), MAX_CALLS);
        assert!(expired.iter().all(|a| matches!(a, Answered::Called { outcome: Err(e), .. }
            if e == "the app did not answer in time")));
        assert!(tools.call(99, "t", Map::new(), 1000).is_ok(), "room again");
    }

    #[test]
    fn list_changed_while_listing_asks_again_once_after() {
        let mut tools = offering();
        tools.list(1, 0).unwrap();
        assert_eq!(tools.list(2, 0), None);
        assert_eq!(tools.list(3, 0), None);
        tools.answer(&Id::Number(1), Ok(json!({"tools": []}))).unwrap();
        assert!(tools.take_relist());
        assert!(!tools.take_relist());
        assert!(tools.list(4, 0).is_some());
    }

    #[test]
    fn closing_fails_the_waiting_calls() {
        let mut tools = offering();
        listed(&mut tools, json!({"tools": [tool("t")]}));
        tools.call(5, "t", Map::new(), 0).unwrap();
        tools.list(6, 0).unwrap();
        assert_eq!(
            tools.close("the app was closed"),
            [Answered::Called { call: ViewCall(5), outcome: Err("the app was closed".into()) }]
        );
        assert_eq!(tools.deadline(), None);
        assert!(tools.call(7, "t", Map::new(), 0).is_err(), "nothing listed any more");
    }
}
