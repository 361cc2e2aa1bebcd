//! Decoding a tagged JSON object by hand, field by field.
//!
//! serde's derive for an internally tagged enum (`#[serde(tag = "type")]`) buffers every
//! payload in its own `Content` tree and instantiates each payload's decoder twice; for the
//! page→worker requests that was a third of the worker's decoding code. The big tagged enums
//! the worker reads are decoded with this instead: take the tag, then each field with
//! [`FromJson`], which reads the few field types there are straight from the owned [`Value`]
//! (going through serde's `Deserialize` from a `Value` cost the worker ~3 KB of wasm: serde_json's
//! `Value` deserializer, its error wording and the `Debug` escaping of strings). Errors read as
//! serde's did (a test checks that), but for control characters in a quoted string.

use serde_json::{Map, Value};

use crate::mcp::ElicitResult;
use crate::settings::{Secret, ServerId};

/// The fields of one JSON object, taken out by name.
pub struct JsonObject {
    fields: Map<String, Value>,
}

impl JsonObject {
    pub fn new(value: Value) -> Result<Self, String> {
        match value {
            Value::Object(fields) => Ok(JsonObject { fields }),
            other => Err(format!("expected an object, got {}", kind_of(&other))),
        }
    }

    /// The string that says which variant this is.
    pub fn tag(&mut self, name: &str) -> Result<String, String> {
        match self.fields.remove(name) {
            Some(Value::String(tag)) => Ok(tag),
            Some(other) => Err(format!("`{name}` must be a string, got {}", kind_of(&other))),
            None => Err(format!("missing field `{name}`")),
        }
    }

    /// A field that must be present, as JSON.
    pub fn take(&mut self, name: &str) -> Result<Value, String> {
        self.fields.remove(name).ok_or_else(|| format!("missing field `{name}`"))
    }

    /// A field that must be present.
    pub fn field<T: FromJson>(&mut self, name: &str) -> Result<T, String> {
        let value = self.take(name)?;
        decode(name, value)
    }
}

fn decode<T: FromJson>(name: &str, value: Value) -> Result<T, String> {
    T::from_json(value).map_err(|err| in_field(name, err))
}

/// Apart from the generic `decode`, so each field type does not carry its own copy.
fn in_field(name: &str, err: String) -> String {
    format!("in `{name}`: {err}")
}

/// A field type [`JsonObject`] can read. The errors are worded as `serde_json::from_value`'s.
pub trait FromJson: Sized {
    fn from_json(value: Value) -> Result<Self, String>;
}

impl FromJson for Value {
    fn from_json(value: Value) -> Result<Self, String> {
        Ok(value)
    }
}

impl FromJson for String {
    fn from_json(value: Value) -> Result<Self, String> {
        match value {
            Value::String(text) => Ok(text),
            other => Err(invalid_type(&other, "a string")),
        }
    }
}

impl FromJson for bool {
    fn from_json(value: Value) -> Result<Self, String> {
        match value {
            Value::Bool(flag) => Ok(flag),
            other => Err(invalid_type(&other, "a boolean")),
        }
    }
}

impl FromJson for u64 {
    fn from_json(value: Value) -> Result<Self, String> {
        match value.as_u64() {
            Some(n) => Ok(n),
            // A negative integer is of the right type but out of range.
            None if value.is_i64() => {
                Err(format!("invalid value: {}, expected u64", unexpected(&value)))
            }
            None => Err(invalid_type(&value, "u64")),
        }
    }
}

impl<T: FromJson> FromJson for Vec<T> {
    fn from_json(value: Value) -> Result<Self, String> {
        match value {
            Value::Array(items) => {
                // A loop, not `collect` into a `Result`: that adapter was a copy per item type.
                let mut read = Vec::with_capacity(items.len());
                for item in items {
                    read.push(T::from_json(item)?);
                }
                Ok(read)
            }
            other => Err(invalid_type(&other, "a sequence")),
        }
    }
}

impl FromJson for ServerId {
    fn from_json(value: Value) -> Result<Self, String> {
        // Any string, as its derived (`transparent`) decoder reads it; checked where it is used.
        String::from_json(value).map(ServerId::from_stored)
    }
}

impl FromJson for Secret {
    fn from_json(value: Value) -> Result<Self, String> {
        match value {
            Value::String(text) => Ok(Secret::new(text)),
            // Never quotes the value, as `Secret`'s own decoder.
            _ => Err("a secret (API key or header value) must be a string".into()),
        }
    }
}

impl FromJson for ElicitResult {
    fn from_json(value: Value) -> Result<Self, String> {
        ElicitResult::from_value(value)
    }
}

/// `text` in double quotes, escaped as JSON. serde quotes with Rust's `Debug`, which is the same
/// but for control and unprintable characters; this keeps `Debug`'s escaping code out of the
/// worker and reuses the JSON writer it has anyway (`serde_json::to_writer` into a `Vec`).
fn quoted(text: &str) -> String {
    let mut out = Vec::new();
    // Writing into memory cannot fail, and JSON text is UTF-8.
    let _ = serde_json::to_writer(&mut out, text);
    String::from_utf8(out).unwrap_or_default()
}

/// serde's "invalid type: integer `5`, expected a string".
fn invalid_type(value: &Value, expected: &str) -> String {
    format!("invalid type: {}, expected {expected}", unexpected(value))
}

/// How serde_json names a value it did not expect: "null", "boolean `true`", "integer `5`",
/// "floating point `1.5`", "string \"x\"", "sequence", "map".
fn unexpected(value: &Value) -> String {
    match value {
        Value::Null => "null".into(),
        Value::Bool(flag) => format!("boolean `{flag}`"),
        Value::Number(n) if n.is_f64() => format!("floating point `{n}`"),
        Value::Number(n) => format!("integer `{n}`"),
        Value::String(text) => format!("string {}", quoted(text)),
        Value::Array(_) => "sequence".into(),
        Value::Object(_) => "map".into(),
    }
}

/// "a string", "an object", … for messages about a value of the wrong kind.
pub fn kind_of(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

/// `unknown type `x`, expected one of `a`, `b`` for a tag no variant has.
pub fn unknown_tag(name: &str, tag: &str, known: &[&str]) -> String {
    let known: Vec<String> = known.iter().map(|k| format!("`{k}`")).collect();
    format!("unknown {name} `{tag}`, expected one of {}", known.join(", "))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn fields_are_taken_with_their_own_types() {
        let mut object =
            JsonObject::new(json!({"type": "t", "n": 3, "s": null, "v": [1, 2]})).unwrap();
        assert_eq!(object.tag("type").unwrap(), "t");
        assert_eq!(object.field::<u64>("n").unwrap(), 3);
        assert_eq!(object.field::<Vec<u64>>("v").unwrap(), vec![1, 2]);
    }

    #[test]
    fn errors_name_the_field_and_what_was_wrong() {
        assert_eq!(JsonObject::new(json!([1])).err().unwrap(), "expected an object, got an array");
        let mut object = JsonObject::new(json!({"type": 1, "n": "x"})).unwrap();
        assert_eq!(object.tag("type").unwrap_err(), "`type` must be a string, got a number");
        assert_eq!(object.tag("kind").unwrap_err(), "missing field `kind`");
        assert_eq!(object.field::<bool>("gone").unwrap_err(), "missing field `gone`");
        let wrong = object.field::<u64>("n").unwrap_err();
        assert!(wrong.starts_with("in `n`: invalid type: string \"x\""), "{wrong}");
        assert_eq!(
            unknown_tag("request type", "x", &["a", "b"]),
            "unknown request type `x`, expected one of `a`, `b`"
        );
    }

    /// Reads `value` both by hand and with serde; they must agree, errors included.
    fn agree<T>(value: &Value)
    where
        T: FromJson + serde::de::DeserializeOwned + PartialEq + std::fmt::Debug,
    {
        let serde = serde_json::from_value::<T>(value.clone()).map_err(|e| e.to_string());
        assert_eq!(T::from_json(value.clone()), serde, "{value}");
    }

    #[test]
    fn field_types_read_as_serde_reads_them() {
        let values = [
            json!(null),
            json!(true),
            json!(0),
            json!(7),
            json!(u64::MAX),
            json!(-3),
            json!(1.5),
            json!(1e20),
            json!(-0.0),
            json!("x"),
            json!("say \"hi\"\\ \n\t é ✓"),
            json!([]),
            json!(["a", "b"]),
            json!(["a", 1]),
            json!([{}]),
            json!({}),
            json!({"action": "accept", "content": {"a": 1}}),
            json!({"action": "nope"}),
            json!({"action": 1}),
            json!({"action": "decline", "content": 5}),
        ];
        for value in &values {
            agree::<String>(value);
            agree::<bool>(value);
            agree::<u64>(value);
            agree::<Value>(value);
            agree::<Vec<String>>(value);
            agree::<Vec<Value>>(value);
            agree::<ServerId>(value);
            agree::<Secret>(value);
            agree::<ElicitResult>(value);
        }
        // The one difference: control characters are escaped as JSON escapes them.
        assert_eq!(
            bool::from_json(json!("a\u{1}")).unwrap_err(),
            r#"invalid type: string "a\u0001", expected a boolean"#
        );
    }
}
