//! JSON-RPC 2.0 envelopes as MCP uses them.
//!
//! Outgoing messages are built as typed values and serialised; incoming bytes are classified by
//! [`Message::parse`], which returns an error value for anything that is not one JSON-RPC message
//! and never panics.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
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
#[serde(untagged)]
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

impl Id {
    /// The JSON form, without serde (a number or a string).
    pub fn to_value(&self) -> Value {
        match self {
            Id::Number(n) => Value::from(*n),
            Id::String(s) => Value::from(s.as_str()),
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

/// The `error` member of a failed response.
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

    /// Reads an `error` member by hand (the derived decoder was ~1.5 KB of the worker's wasm):
    /// an object with an integer `code` and a string `message`; a `null` `data` is no data.
    pub fn from_value(value: Value) -> Option<ErrorObject> {
        let Value::Object(mut fields) = value else { return None };
        let code = fields.get("code")?.as_i64()?;
        let Some(Value::String(message)) = fields.remove("message") else { return None };
        let data = fields.remove("data").filter(|data| !data.is_null());
        Some(ErrorObject { code, message, data })
    }

    /// The JSON form, as the derived `Serialize` writes it.
    pub fn to_value(&self) -> Value {
        let mut object = Map::new();
        object.insert("code".into(), self.code.into());
        object.insert("message".into(), self.message.as_str().into());
        if let Some(data) = &self.data {
            object.insert("data".into(), data.clone());
        }
        Value::Object(object)
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

/// One JSON-RPC message in either direction.
#[derive(Clone, Debug, PartialEq)]
pub enum Message {
    Request(Request),
    Notification(Notification),
    Response(Response),
}

/// Why bytes are not a JSON-RPC message.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ParseError {
    /// Not JSON at all; carries serde's description (which never quotes the input).
    Json(String),
    /// JSON, but not a JSON-RPC 2.0 message; says what is wrong.
    Shape(&'static str),
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
        let value: Value =
            serde_json::from_slice(bytes).map_err(|e| ParseError::Json(e.to_string()))?;
        Message::from_value(value)
    }

    pub fn from_value(value: Value) -> Result<Message, ParseError> {
        let mut object = match value {
            Value::Object(object) => object,
            Value::Array(_) => return Err(ParseError::Batch),
            _ => return Err(ParseError::Shape("expected a JSON object")),
        };
        if object.get("jsonrpc").and_then(Value::as_str) != Some("2.0") {
            return Err(ParseError::Shape("missing \"jsonrpc\": \"2.0\""));
        }
        let id = match object.remove("id") {
            None | Some(Value::Null) => None,
            Some(raw) => Some(parse_id(raw)?),
        };
        let params = object.remove("params");
        if let Some(method) = object.remove("method") {
            let Value::String(method) = method else {
                return Err(ParseError::Shape("\"method\" is not a string"));
            };
            return Ok(match id {
                Some(id) => Message::Request(Request { id, method, params }),
                None => Message::Notification(Notification { method, params }),
            });
        }
        if let Some(error) = object.remove("error") {
            let error = ErrorObject::from_value(error)
                .ok_or(ParseError::Shape("\"error\" lacks an integer code or a message"))?;
            return Ok(Message::Response(Response { id, outcome: Err(error) }));
        }
        match (id, object.remove("result")) {
            (Some(id), Some(result)) => {
                Ok(Message::Response(Response { id: Some(id), outcome: Ok(result) }))
            }
            (None, Some(_)) => Err(ParseError::Shape("a result without an id")),
            _ => Err(ParseError::Shape("neither method, result nor error")),
        }
    }

    /// The JSON text of this message.
    pub fn to_json(&self) -> String {
        let mut object = Map::new();
        object.insert("jsonrpc".into(), Value::from("2.0"));
        match self {
            Message::Request(r) => {
                object.insert("id".into(), r.id.to_value());
                object.insert("method".into(), Value::from(r.method.as_str()));
                if let Some(params) = &r.params {
                    object.insert("params".into(), params.clone());
                }
            }
            Message::Notification(n) => {
                object.insert("method".into(), Value::from(n.method.as_str()));
                if let Some(params) = &n.params {
                    object.insert("params".into(), params.clone());
                }
            }
            Message::Response(r) => {
                object.insert("id".into(), r.id.as_ref().map_or(Value::Null, Id::to_value));
                match &r.outcome {
                    Ok(result) => object.insert("result".into(), result.clone()),
                    Err(error) => object.insert("error".into(), error.to_value()),
                };
            }
        }
        // `to_string` as the worker's other JSON is written, not `Display`: each is its own
        // copy of the serialiser in the wasm. A `Value` always serialises.
        serde_json::to_string(&Value::Object(object)).unwrap_or_default()
    }
}

fn parse_id(raw: Value) -> Result<Id, ParseError> {
    match raw {
        Value::String(s) => Ok(Id::String(s)),
        Value::Number(n) => {
            n.as_i64().map(Id::Number).ok_or(ParseError::Shape("\"id\" is not an integer"))
        }
        _ => Err(ParseError::Shape("\"id\" is neither a number nor a string")),
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
    fn error_objects_read_and_written_by_hand_agree_with_the_derive() {
        for error in [
            json!({"code": -32600, "message": "bad"}),
            json!({"code": 1, "message": "m", "data": {"x": [1]}, "extra": true}),
            json!({"code": 1, "message": "m", "data": null}),
            json!({"code": 9223372036854775807u64, "message": ""}),
            json!({"code": 9223372036854775808u64, "message": "too big"}),
            json!({"code": 1.5, "message": "m"}),
            json!({"code": "1", "message": "m"}),
            json!({"code": 1, "message": 2}),
            json!({"code": 1}),
            json!({"message": "m"}),
            json!("error"),
            json!(null),
        ] {
            let derived: Option<ErrorObject> = serde_json::from_value(error.clone()).ok();
            let by_hand = ErrorObject::from_value(error.clone());
            assert_eq!(by_hand, derived, "{error}");
            if let Some(e) = by_hand {
                assert_eq!(e.to_value(), serde_json::to_value(&e).unwrap(), "{error}");
            }
        }
    }

    #[test]
    fn ids_are_written_as_the_derive_writes_them() {
        for id in [Id::Number(-3), Id::String("a".into())] {
            assert_eq!(id.to_value(), serde_json::to_value(&id).unwrap());
        }
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
