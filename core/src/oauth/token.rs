//! What the token endpoint answers (RFC 6749 §5.1, §5.2), and OAuth error bodies in general.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::settings::Secret;

/// RFC 6749 §5.1. Tokens are [`Secret`]s: they never show in `Debug`, and a token of the wrong
/// JSON type is refused without its value being copied into the error.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TokenResponse {
    pub access_token: Secret,
    /// Required by RFC 6749; a server that leaves it out is taken to mean Bearer.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub token_type: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub expires_in: Option<ExpiresIn>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub refresh_token: Option<Secret>,
    /// The scopes granted, when they differ from those asked for.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scope: Option<String>,
    /// OpenID Connect; not used, kept secret.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id_token: Option<Secret>,
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// `expires_in`: a number of seconds, which some servers send as a string or with a fraction.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum ExpiresIn {
    Number(f64),
    Text(String),
}

impl ExpiresIn {
    /// Whole seconds; `None` for something that is not a non-negative number.
    pub fn seconds(&self) -> Option<u64> {
        let value = match self {
            ExpiresIn::Number(n) => *n,
            // JSON's number grammar, read by the JSON parser the answer came through.
            ExpiresIn::Text(text) => serde_json::from_str(text.trim()).ok()?,
        };
        // `as` saturates, so a huge lifetime is "a very long time", not an overflow.
        (value.is_finite() && value >= 0.0).then_some(value as u64)
    }
}

/// RFC 6749 §5.2 (also used by RFC 7591 §3.2.2 and RFC 7009 §2.2.1).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ErrorResponse {
    pub error: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error_description: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error_uri: Option<String>,
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lifetimes_in_the_forms_servers_send() {
        for (json, expected) in [
            ("3600", Some(3600)),
            ("\"3600\"", Some(3600)),
            ("3599.7", Some(3599)),
            ("-1", None),
            ("\"soon\"", None),
            ("1e400", None),
        ] {
            let parsed: Result<ExpiresIn, _> = serde_json::from_str(json);
            assert_eq!(parsed.ok().and_then(|e| e.seconds()), expected, "{json}");
        }
    }

    #[test]
    fn a_token_of_the_wrong_type_is_not_echoed() {
        let error = serde_json::from_str::<TokenResponse>(
            r#"{"access_token": 12345678, "token_type": "Bearer"}"#,
        )
        .unwrap_err()
        .to_string();
        assert!(!error.contains("12345678"), "{error}");
        let response: TokenResponse = serde_json::from_str(
            r#"{"access_token":"SECRET-A","refresh_token":"SECRET-R","token_type":"bearer","x":1}"#,
        )
        .unwrap();
        let debug = format!("{response:?}");
        assert!(!debug.contains("SECRET"), "{debug}");
        assert_eq!(response.extra.get("x"), Some(&Value::from(1)));
    }
}
