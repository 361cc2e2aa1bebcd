//! What the worker keeps per server in `chrome.storage.session` so that a restarted worker
//! resumes the MCP session instead of starting over.

use serde::{Deserialize, Serialize};

use crate::mcp::SessionState;

/// A saved session. The URL is kept too so that a session is never resumed against a server
/// whose URL changed.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SavedSession {
    pub url: String,
    pub state: SessionState,
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn optional_parts_are_written_only_when_set() {
        let state = SessionState {
            protocol_version: "2025-11-25".into(),
            session_id: Some("abc".into()),
            sse_transport: false,
        };
        let saved = SavedSession { url: "https://a.example/mcp".into(), state };
        let wire = serde_json::to_value(&saved).unwrap();
        assert_eq!(
            wire,
            json!({"url": "https://a.example/mcp", "state": {"protocolVersion": "2025-11-25", "sessionId": "abc"}})
        );
        assert_eq!(serde_json::from_value::<SavedSession>(wire).unwrap(), saved);
        let bad = json!({"url": "u", "state": {"protocolVersion": "v", "sessionId": 5}});
        assert!(serde_json::from_value::<SavedSession>(bad).is_err());
    }
}
