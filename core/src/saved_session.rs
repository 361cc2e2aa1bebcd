//! What the worker keeps per server in `chrome.storage.session` so that a restarted worker
//! resumes the MCP session instead of starting over.
//!
//! Read and written by hand: serde's derives for this one record (and `SessionState` inside it)
//! were 1.5 KB gzip of the worker's wasm. The test below keeps the form the derive gave.

use serde_json::{Map, Value};

use crate::mcp::SessionState;

/// A saved session. The URL is kept too so that a session is never resumed against a server
/// whose URL changed.
#[derive(Debug, Clone, PartialEq)]
pub struct SavedSession {
    pub url: String,
    pub state: SessionState,
}

impl SavedSession {
    /// `{"url", "state": {"protocolVersion", "sessionId"?, "sseTransport"?}}`; the optional
    /// fields only when set.
    pub fn to_json(&self) -> Value {
        let state = &self.state;
        let mut fields = Map::new();
        fields.insert("protocolVersion".into(), state.protocol_version.clone().into());
        if let Some(id) = &state.session_id {
            fields.insert("sessionId".into(), id.clone().into());
        }
        if state.sse_transport {
            fields.insert("sseTransport".into(), true.into());
        }
        let mut saved = Map::new();
        saved.insert("url".into(), self.url.clone().into());
        saved.insert("state".into(), fields.into());
        saved.into()
    }

    /// The inverse of [`SavedSession::to_json`]; `None` for anything else (the session is then
    /// not resumed). Unknown fields are ignored, as the derive did.
    pub fn from_json(saved: &Value) -> Option<SavedSession> {
        let url = saved.get("url")?.as_str()?.to_owned();
        let state = saved.get("state")?;
        let protocol_version = state.get("protocolVersion")?.as_str()?.to_owned();
        let session_id = match state.get("sessionId") {
            None | Some(Value::Null) => None,
            Some(Value::String(id)) => Some(id.clone()),
            Some(_) => return None,
        };
        let sse_transport = match state.get("sseTransport") {
            None => false,
            Some(Value::Bool(on)) => *on,
            Some(_) => return None,
        };
        Some(SavedSession {
            url,
            state: SessionState { protocol_version, session_id, sse_transport },
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde::{Deserialize, Serialize};
    use serde_json::json;

    /// The derived form the worker used to store.
    #[derive(Serialize, Deserialize, Debug, PartialEq)]
    struct Derived {
        url: String,
        state: SessionState,
    }

    fn states() -> Vec<SessionState> {
        let state = |version: &str, id: Option<&str>, sse| SessionState {
            protocol_version: version.into(),
            session_id: id.map(Into::into),
            sse_transport: sse,
        };
        vec![
            state("2026-07-28", None, false),
            state("2025-11-25", Some("abc-123"), false),
            state("2024-11-05", None, true),
            state("2024-11-05", Some("s"), true),
        ]
    }

    #[test]
    fn writes_what_the_derive_wrote() {
        for state in states() {
            let saved = SavedSession { url: "https://a.example/mcp".into(), state: state.clone() };
            let derived = Derived { url: saved.url.clone(), state };
            assert_eq!(saved.to_json(), serde_json::to_value(&derived).unwrap());
        }
    }

    #[test]
    fn reads_what_the_derive_reads() {
        let mut inputs: Vec<Value> = states()
            .into_iter()
            .map(|state| SavedSession { url: "https://a.example/mcp".into(), state }.to_json())
            .collect();
        inputs.extend([
            json!({"url": "u", "state": {"protocolVersion": "v", "sessionId": null}, "extra": 1}),
            json!({"url": "u", "state": {"protocolVersion": "v", "sseTransport": false}}),
            json!({"url": "u", "state": {"protocolVersion": "v", "sseTransport": null}}),
            json!({"url": "u", "state": {"protocolVersion": "v", "sessionId": 5}}),
            json!({"url": "u", "state": {"sessionId": "s"}}),
            json!({"url": 1, "state": {"protocolVersion": "v"}}),
            json!({"state": {"protocolVersion": "v"}}),
            json!({"url": "u"}),
            json!({"url": "u", "state": "v"}),
            json!(null),
            json!("text"),
        ]);
        for input in inputs {
            let derived = serde_json::from_value::<Derived>(input.clone()).ok();
            let by_hand = SavedSession::from_json(&input);
            assert_eq!(
                by_hand.map(|s| (s.url, s.state)),
                derived.map(|d| (d.url, d.state)),
                "{input}"
            );
        }
    }
}
