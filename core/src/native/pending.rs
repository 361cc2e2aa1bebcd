//! The requests a server has not answered yet, so that when it exits each one gets an error
//! response at once instead of waiting for its timeout.

use std::collections::HashSet;

use serde_json::Value;

use crate::jsonrpc::{ErrorObject, Id, Message, Response};

/// At most this many requests are remembered per server; more are still relayed, but would
/// only time out if the server died.
const MAX_PENDING: usize = 10_000;

#[derive(Debug, Default)]
pub struct Pending {
    ids: HashSet<Id>,
}

impl Pending {
    /// A message from the worker to the server: requests (a `method` and an `id`) are noted.
    pub fn note_outgoing(&mut self, message: &Value) {
        for one in each(message) {
            if one.get("method").is_some() && self.ids.len() < MAX_PENDING {
                if let Some(id) = id_of(one) {
                    self.ids.insert(id);
                }
            }
        }
    }

    /// A message from the server: a response (an `id` and no `method`) settles its request.
    pub fn note_incoming(&mut self, message: &Value) {
        for one in each(message) {
            if one.get("method").is_none() {
                if let Some(id) = id_of(one) {
                    self.ids.remove(&id);
                }
            }
        }
    }

    pub fn is_empty(&self) -> bool {
        self.ids.is_empty()
    }

    /// An error response with `error` for every unanswered request, which are then forgotten.
    pub fn fail_all(&mut self, error: &ErrorObject) -> Vec<Value> {
        self.ids
            .drain()
            .filter_map(|id| {
                let response =
                    Message::Response(Response { id: Some(id), outcome: Err(error.clone()) });
                serde_json::from_str(&response.to_json()).ok()
            })
            .collect()
    }
}

/// The messages of a batch, or the message itself.
fn each(message: &Value) -> impl Iterator<Item = &Value> {
    match message {
        Value::Array(items) => items.iter().collect::<Vec<_>>().into_iter(),
        one => vec![one].into_iter(),
    }
}

fn id_of(message: &Value) -> Option<Id> {
    match message.get("id")? {
        Value::Number(n) => n.as_i64().map(Id::Number),
        Value::String(s) => Some(Id::String(s.clone())),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn unanswered_requests_fail_when_the_server_exits() {
        let mut pending = Pending::default();
        pending.note_outgoing(&json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call"}));
        pending.note_outgoing(&json!({"jsonrpc": "2.0", "id": "b", "method": "tools/list"}));
        pending.note_outgoing(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
        // The worker's answer to a request from the server is not a pending request.
        pending.note_outgoing(&json!({"jsonrpc": "2.0", "id": 9, "result": {}}));
        // A request from the server with the same id as ours does not settle ours.
        pending.note_incoming(&json!({"jsonrpc": "2.0", "id": 1, "method": "roots/list"}));
        pending.note_incoming(&json!({"jsonrpc": "2.0", "id": "b", "result": {}}));
        assert!(!pending.is_empty());
        let failed = pending.fail_all(&ErrorObject::new(-32000, "the server exited"));
        assert_eq!(
            failed,
            vec![json!({"jsonrpc": "2.0", "id": 1,
                        "error": {"code": -32000, "message": "the server exited"}})]
        );
        assert!(pending.is_empty());
    }

    #[test]
    fn batches_and_odd_ids_are_handled() {
        let mut pending = Pending::default();
        pending.note_outgoing(&json!([
            {"jsonrpc": "2.0", "id": 1, "method": "a"},
            {"jsonrpc": "2.0", "id": null, "method": "b"},
            {"jsonrpc": "2.0", "id": 1.5, "method": "c"},
            "not an object"
        ]));
        pending.note_incoming(&json!([{"jsonrpc": "2.0", "id": 1, "result": 0}]));
        assert!(pending.is_empty());
    }
}
