//! JSON-RPC 2.0 envelopes as MCP uses them.
//!
//! Outgoing messages are built as typed values and serialised; incoming bytes are classified by
//! [`Message::parse`], which returns an error value for anything that is not one JSON-RPC message
//! and never panics.

use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::fmt;

/// Standard JSON-RPC 2.0 and MCP error codes.
pub mod code {
    pub const PARSE_ERROR: i64 = -32700;
    pub const INVALID_REQUEST: i64 = -32600;
    pub const METHOD_NOT_FOUND: i64 = -32601;
    pub const INVALID_PARAMS: i64 = -32602;
    pub const INTERNAL_ERROR: i64 = -32603;
    /// MCP 2025-11-25: the server needs the person to open a URL first.
    pub const URL_ELICITATION_REQUIRED: i64 = -32042;
    /// MCP 2026-07-28: HTTP headers do not match the request body.
    pub const HEADER_MISMATCH: i64 = -32020;
    /// MCP 2026-07-28: the request lacks a client capability the server requires.
    pub const MISSING_REQUIRED_CLIENT_CAPABILITY: i64 = -32021;
    /// MCP 2026-07-28: the server does not speak the requested protocol version.
    pub const UNSUPPORTED_PROTOCOL_VERSION: i64 = -32022;
}

/// A request id: JSON-RPC allows numbers and strings (null ids are not used by MCP).
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(untagged, expecting = "an integer or a string")]
pub enum Id {
    Number(i64),
    String(String),
}

impl fmt::Display for Id {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Id::Number(n) => write!(f, "{n}"),
            Id::String(s) => write!(f, "\"{s}\""),
        }
    }
}

impl From<i64> for Id {
    fn from(n: i64) -> Self {
        Id::Number(n)
    }
}

impl From<&str> for Id {
    fn from(s: &str) -> Self {
        Id::String(s.to_owned())
    }
}

/// The `error` member of a failed response. Unknown members are ignored; a `null` `data` is no
/// data.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ErrorObject {
    pub code: i64,
    pub message: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub data: Option<Value>,
}

impl ErrorObject {
    pub fn new(code: i64, message: impl Into<String>) -> Self {
        ErrorObject { code, message: message.into(), data: None }
    }
}

impl fmt::Display for ErrorObject {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} (code {})", self.message, self.code)
    }
}

#[derive(Clone, Debug, PartialEq)]
pub struct Request {
    pub id: Id,
    pub method: String,
    pub params: Option<Value>,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Notification {
    pub method: String,
    pub params: Option<Value>,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Response {
    /// `None` only for errors the server could not attribute to a request.
    pub id: Option<Id>,
    pub outcome: Result<Value, ErrorObject>,
}

/// One JSON-RPC message in either direction. On the wire it is one object whose members say
/// what it is ([`Envelope`]); serde reads and writes it through that form.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(try_from = "Envelope", into = "Envelope")]
pub enum Message {
    Request(Request),
    Notification(Notification),
    Response(Response),
}

/// The members a JSON-RPC 2.0 message may have. `id` is doubly optional: a response to an
/// unattributable request carries `"id": null`, a notification no `id` at all.
#[derive(Serialize, Deserialize)]
struct Envelope {
    jsonrpc: Version,
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        with = "::serde_with::rust::double_option"
    )]
    id: Option<Option<Id>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    method: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    params: Option<Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    result: Option<Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    error: Option<ErrorObject>,
}

/// `"jsonrpc": "2.0"`, the only version there is.
#[derive(Serialize, Deserialize)]
enum Version {
    #[serde(rename = "2.0")]
    V2,
}

impl TryFrom<Envelope> for Message {
    type Error = &'static str;

    fn try_from(wire: Envelope) -> Result<Message, &'static str> {
        let id = wire.id.flatten();
        if let Some(method) = wire.method {
            return Ok(match id {
                Some(id) => Message::Request(Request { id, method, params: wire.params }),
                None => Message::Notification(Notification { method, params: wire.params }),
            });
        }
        if let Some(error) = wire.error {
            return Ok(Message::Response(Response { id, outcome: Err(error) }));
        }
        match (id, wire.result) {
            (Some(id), Some(result)) => {
                Ok(Message::Response(Response { id: Some(id), outcome: Ok(result) }))
            }
            (None, Some(_)) => Err("a result without an id"),
            _ => Err("neither method, result nor error"),
        }
    }
}

impl From<Message> for Envelope {
    fn from(message: Message) -> Envelope {
        let mut wire = Envelope {
            jsonrpc: Version::V2,
            id: None,
            method: None,
            params: None,
            result: None,
            error: None,
        };
        match message {
            Message::Request(r) => {
                wire.id = Some(Some(r.id));
                wire.method = Some(r.method);
                wire.params = r.params;
            }
            Message::Notification(n) => {
                wire.method = Some(n.method);
                wire.params = n.params;
            }
            Message::Response(r) => {
                wire.id = Some(r.id);
                match r.outcome {
                    Ok(result) => wire.result = Some(result),
                    Err(error) => wire.error = Some(error),
                }
            }
        }
        wire
    }
}

/// Why bytes are not a JSON-RPC message.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ParseError {
    /// Not JSON at all; carries serde's description (which never quotes the input).
    Json(String),
    /// JSON, but not a JSON-RPC 2.0 message; says what is wrong.
    Shape(String),
    /// A JSON array: batches are not part of MCP since 2025-06-18 and never sent by this client.
    Batch,
}

impl fmt::Display for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ParseError::Json(e) => write!(f, "malformed JSON: {e}"),
            ParseError::Shape(what) => write!(f, "not a JSON-RPC 2.0 message: {what}"),
            ParseError::Batch => f.write_str("unexpected JSON-RPC batch"),
        }
    }
}

impl std::error::Error for ParseError {}

impl Message {
    /// Classifies one JSON text. Accepts anything serde_json accepts; never panics.
    pub fn parse(bytes: &[u8]) -> Result<Message, ParseError> {
        if bytes.trim_ascii_start().starts_with(b"[") {
            return Err(ParseError::Batch);
        }
        serde_json::from_slice(bytes).map_err(|e| match e.classify() {
            serde_json::error::Category::Data => ParseError::Shape(e.to_string()),
            _ => ParseError::Json(e.to_string()),
        })
    }

    /// The JSON text of this message.
    pub fn to_json(&self) -> String {
        // A message holds only JSON values and strings: it always serialises.
        serde_json::to_string(self).unwrap_or_default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn classifies_the_four_kinds() {
        let request = Message::parse(br#"{"jsonrpc":"2.0","id":"a","method":"ping"}"#);
        assert!(matches!(request, Ok(Message::Request(Request { id: Id::String(_), .. }))));
        let note =
            Message::parse(br#"{"jsonrpc":"2.0","method":"notifications/progress","params":{}}"#);
        assert!(matches!(note, Ok(Message::Notification(_))));
        let ok = Message::parse(br#"{"jsonrpc":"2.0","id":7,"result":{}}"#);
        assert_eq!(
            ok,
            Ok(Message::Response(Response { id: Some(Id::Number(7)), outcome: Ok(json!({})) }))
        );
        let err = Message::parse(
            br#"{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"bad"}}"#,
        );
        assert_eq!(
            err,
            Ok(Message::Response(Response {
                id: None,
                outcome: Err(ErrorObject::new(code::INVALID_REQUEST, "bad"))
            }))
        );
    }

    #[test]
    fn rejects_what_is_not_json_rpc() {
        for bad in [
            &b"<html>"[..],
            b"",
            b"[]",
            b"42",
            br#"{"id":1,"result":{}}"#,
            br#"{"jsonrpc":"1.0","id":1,"result":{}}"#,
            br#"{"jsonrpc":"2.0","id":1.5,"result":{}}"#,
            br#"{"jsonrpc":"2.0","id":{},"method":"x"}"#,
            br#"{"jsonrpc":"2.0","method":3}"#,
            br#"{"jsonrpc":"2.0","result":{}}"#,
            br#"{"jsonrpc":"2.0","id":1,"error":{"message":"no code"}}"#,
            br#"{"jsonrpc":"2.0","id":1}"#,
        ] {
            assert!(Message::parse(bad).is_err(), "{:?}", String::from_utf8_lossy(bad));
        }
    }

    #[test]
    fn shape_errors_say_what_is_wrong() {
        let cases: [(&[u8], &str); 5] = [
            (br#"{"jsonrpc":"2.0","id":1.5,"result":{}}"#, "an integer or a string"),
            (br#"{"jsonrpc":"1.0","id":1,"result":{}}"#, "unknown variant `1.0`"),
            (br#"{"id":1,"result":{}}"#, "missing field `jsonrpc`"),
            (br#"{"jsonrpc":"2.0","result":{}}"#, "a result without an id"),
            (br#"{"jsonrpc":"2.0","id":1,"error":{"message":"no code"}}"#, "missing field `code`"),
        ];
        for (bytes, expected) in cases {
            match Message::parse(bytes) {
                Err(ParseError::Shape(why)) => assert!(why.contains(expected), "{why}"),
                other => panic!("{}: {other:?}", String::from_utf8_lossy(bytes)),
            }
        }
        assert!(matches!(Message::parse(b"{"), Err(ParseError::Json(_))));
        assert_eq!(Message::parse(b" [1]"), Err(ParseError::Batch));
    }

    #[test]
    fn a_response_without_an_id_is_written_with_a_null_one() {
        let response = Message::Response(Response {
            id: None,
            outcome: Err(ErrorObject::new(code::PARSE_ERROR, "x")),
        });
        let wire: Value = serde_json::from_str(&response.to_json()).unwrap();
        assert_eq!(
            wire,
            json!({"jsonrpc": "2.0", "id": null, "error": {"code": -32700, "message": "x"}})
        );
        let note = Message::Notification(Notification { method: "m".into(), params: None });
        assert_eq!(note.to_json(), r#"{"jsonrpc":"2.0","method":"m"}"#);
    }

    #[test]
    fn round_trips() {
        let messages = [
            Message::Request(Request {
                id: Id::Number(1),
                method: "tools/list".into(),
                params: Some(json!({"cursor":"c"})),
            }),
            Message::Request(Request { id: "x".into(), method: "ping".into(), params: None }),
            Message::Notification(Notification {
                method: "notifications/initialized".into(),
                params: None,
            }),
            Message::Response(Response { id: Some(Id::Number(2)), outcome: Ok(json!({"a":1})) }),
            Message::Response(Response {
                id: Some("e".into()),
                outcome: Err(ErrorObject {
                    code: -32022,
                    message: "v".into(),
                    data: Some(json!({"supported":[]})),
                }),
            }),
        ];
        for message in messages {
            assert_eq!(Message::parse(message.to_json().as_bytes()), Ok(message));
        }
    }
}
