//! Decoding a tagged JSON object by hand, field by field.
//!
//! serde's derive for an internally tagged enum (`#[serde(tag = "type")]`) buffers every
//! payload in its own `Content` tree and instantiates each payload's decoder twice; for the
//! page→worker requests that was a third of the worker's decoding code. The big tagged enums
//! the worker reads are decoded with this instead: take the tag, then each field with the
//! field type's own `Deserialize` from an owned [`Value`] (one instantiation per type).

use serde::de::DeserializeOwned;
use serde_json::{Map, Value};

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
    pub fn field<T: DeserializeOwned>(&mut self, name: &str) -> Result<T, String> {
        let value = self.take(name)?;
        decode(name, value)
    }
}

fn decode<T: DeserializeOwned>(name: &str, value: Value) -> Result<T, String> {
    serde_json::from_value(value).map_err(|err| format!("in `{name}`: {err}"))
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
        assert_eq!(object.field::<Vec<u8>>("v").unwrap(), vec![1, 2]);
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
}
