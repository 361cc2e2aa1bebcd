//! Reading JSON into the project's serde types, with errors that say what was being read and
//! where ("settings: servers[2].url: invalid type: integer `5`, expected a string").
//!
//! Every JSON document has one type with serde derives; this is the one way to read them when
//! the error may reach a person. The error never quotes a string value of the document: serde
//! would ("invalid type: string \"sk-…\""), and a key typed into the wrong field is still a key.

use std::fmt;

use serde::de::DeserializeOwned;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::Value;

/// A document that could not be read: what it was, where in it, and why.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DecodeError {
    what: &'static str,
    /// `servers[2].url`; empty for the document itself.
    path: String,
    reason: String,
}

impl DecodeError {
    pub fn new(what: &'static str, reason: impl Into<String>) -> Self {
        DecodeError { what, path: String::new(), reason: reason.into() }
    }

    /// What was being read ("settings", "a page's request", …).
    pub fn what(&self) -> &'static str {
        self.what
    }

    /// Where in it, as `servers[2].url`; empty for the whole document.
    pub fn path(&self) -> &str {
        &self.path
    }

    pub fn reason(&self) -> &str {
        &self.reason
    }

    /// Where and why, without what was being read: "headers.X: invalid type: …".
    pub fn located(&self) -> String {
        match self.path.as_str() {
            "" => self.reason.clone(),
            path => format!("{path}: {}", self.reason),
        }
    }

    fn from_path_error(
        what: &'static str,
        error: serde_path_to_error::Error<serde_json::Error>,
    ) -> Self {
        let path = error.path().to_string();
        let path = if path == "." { String::new() } else { path };
        DecodeError { what, path, reason: without_strings(&error.into_inner().to_string()) }
    }
}

impl fmt::Display for DecodeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.what)?;
        if !self.path.is_empty() {
            write!(f, ": {}", self.path)?;
        }
        write!(f, ": {}", self.reason)
    }
}

impl std::error::Error for DecodeError {}

/// serde's message with every quoted string value cut out: everything between the first and
/// the last double quote becomes `…`.
pub fn without_strings(text: &str) -> String {
    match (text.find('"'), text.rfind('"')) {
        (Some(a), Some(b)) if a < b => format!("{}\"…\"{}", &text[..a], &text[b + 1..]),
        _ => text.to_owned(),
    }
}

/// Reads `T` from a JSON value.
pub fn from_value<T: DeserializeOwned>(what: &'static str, value: Value) -> Result<T, DecodeError> {
    serde_path_to_error::deserialize(value).map_err(|e| DecodeError::from_path_error(what, e))
}

/// Reads `T` from JSON text.
pub fn from_slice<T: DeserializeOwned>(what: &'static str, bytes: &[u8]) -> Result<T, DecodeError> {
    let mut reader = serde_json::Deserializer::from_slice(bytes);
    let value = serde_path_to_error::deserialize(&mut reader)
        .map_err(|e| DecodeError::from_path_error(what, e))?;
    reader.end().map_err(|e| DecodeError::new(what, without_strings(&e.to_string())))?;
    Ok(value)
}

/// An entry of a list read on its own: a malformed one costs only itself. The list's reader
/// keeps the good entries and reports the others ([`Lenient::Invalid`]).
#[derive(Clone, Debug, PartialEq)]
pub enum Lenient<T> {
    Valid(T),
    Invalid { raw: Value, error: DecodeError },
}

impl<T> Lenient<T> {
    pub fn valid(self) -> Option<T> {
        match self {
            Lenient::Valid(item) => Some(item),
            Lenient::Invalid { .. } => None,
        }
    }
}

impl<'de, T: DeserializeOwned> Deserialize<'de> for Lenient<T> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let raw = Value::deserialize(deserializer)?;
        Ok(match from_value("an entry", raw.clone()) {
            Ok(item) => Lenient::Valid(item),
            Err(error) => Lenient::Invalid { raw, error },
        })
    }
}

impl<T: Serialize> Serialize for Lenient<T> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            Lenient::Valid(item) => item.serialize(serializer),
            Lenient::Invalid { raw, .. } => raw.serialize(serializer),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[derive(Debug, Deserialize, PartialEq)]
    struct Doc {
        servers: Vec<Server>,
    }

    #[derive(Debug, Deserialize, PartialEq)]
    struct Server {
        url: String,
    }

    #[test]
    fn errors_name_the_document_and_the_place() {
        let doc = json!({"servers": [{"url": "a"}, {"url": "b"}, {"url": 5}]});
        let err = from_value::<Doc>("settings", doc).unwrap_err();
        assert_eq!(err.path(), "servers[2].url");
        assert_eq!(
            err.to_string(),
            "settings: servers[2].url: invalid type: integer `5`, expected a string"
        );
        let err = from_slice::<Doc>("settings", br#""sk-secret""#).unwrap_err();
        assert_eq!(err.path(), "");
        assert!(
            err.to_string()
                .starts_with("settings: invalid type: string \"…\", expected struct Doc"),
            "{err}"
        );
        let err = from_slice::<Doc>("settings", br#"{"servers": []} x"#).unwrap_err();
        assert!(err.to_string().contains("trailing characters"), "{err}");
    }

    #[test]
    fn a_lenient_entry_keeps_what_it_could_not_read() {
        let entries: Vec<Lenient<Server>> =
            serde_json::from_value(json!([{"url": "a"}, {"url": 1}])).unwrap();
        assert_eq!(entries[0], Lenient::Valid(Server { url: "a".into() }));
        match &entries[1] {
            Lenient::Invalid { raw, error } => {
                assert_eq!(raw, &json!({"url": 1}));
                assert_eq!(error.path(), "url");
            }
            other => panic!("{other:?}"),
        }
    }
}
