//! The older GemiHub app messages, for apps that never send `ui/initialize`: plain objects
//! tagged by `type`, not JSON-RPC.
//!
//! * host → app, once the frame has loaded: `{"type": "toolResult", "result": CallToolResult}`
//! * app → host: `{"type": "tools/call", "id", "name", "arguments"}`, answered with
//!   `{"type": "tools/call", "id", "result"}` or `{…, "error": {"message"}}`
//! * app → host: `{"type": "context/update", "id"?, "context"}`, answered with
//!   `{"type": "context/update", "id", "result": {"ok": true}}`

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::mcp::CallToolResult;

/// A message of a legacy app.
#[derive(Clone, Debug, PartialEq, Deserialize)]
#[serde(tag = "type")]
pub enum LegacyFromApp {
    #[serde(rename = "tools/call")]
    CallTool {
        #[serde(default)]
        id: Value,
        name: String,
        #[serde(default)]
        arguments: Map<String, Value>,
    },
    #[serde(rename = "context/update")]
    UpdateContext {
        #[serde(default)]
        id: Value,
        #[serde(default)]
        context: Value,
    },
}

impl LegacyFromApp {
    pub fn read(value: &Value) -> Option<LegacyFromApp> {
        // JSON-RPC messages are never legacy ones, whatever else they carry.
        if value.get("jsonrpc").is_some() {
            return None;
        }
        LegacyFromApp::deserialize(value).ok()
    }
}

/// A message of the host to a legacy app.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(tag = "type")]
pub enum LegacyToApp<'a> {
    #[serde(rename = "toolResult")]
    ToolResult { result: &'a CallToolResult },
    #[serde(rename = "tools/call")]
    CallToolAnswer {
        id: Value,
        #[serde(skip_serializing_if = "Option::is_none")]
        result: Option<&'a CallToolResult>,
        #[serde(skip_serializing_if = "Option::is_none")]
        error: Option<LegacyError>,
    },
    #[serde(rename = "context/update")]
    ContextAcknowledged { id: Value, result: Ok },
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct LegacyError {
    pub message: String,
}

/// `{"ok": true}`.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Ok {
    pub ok: bool,
}

impl LegacyToApp<'_> {
    pub fn to_value(&self) -> Value {
        serde_json::to_value(self).unwrap_or(Value::Null)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn legacy_messages_are_read_by_type_and_never_from_json_rpc() {
        assert!(matches!(
            LegacyFromApp::read(&json!({"type": "tools/call", "id": 1, "name": "t"})),
            Some(LegacyFromApp::CallTool { name, .. }) if name == "t"
        ));
        assert!(matches!(
            LegacyFromApp::read(&json!({"type": "context/update", "context": {"a": 1}})),
            Some(LegacyFromApp::UpdateContext { .. })
        ));
        assert_eq!(
            LegacyFromApp::read(&json!({"jsonrpc": "2.0", "type": "tools/call", "name": "t"})),
            None
        );
        assert_eq!(LegacyFromApp::read(&json!({"type": "other"})), None);
    }

    #[test]
    fn the_acknowledgement_is_ok_true() {
        let ack = LegacyToApp::ContextAcknowledged { id: json!(7), result: Ok { ok: true } };
        assert_eq!(
            ack.to_value(),
            json!({"type": "context/update", "id": 7, "result": {"ok": true}})
        );
    }
}
