//! A string that must not show up in logs, panics or error messages.

use std::fmt;

use serde::de::{self, Visitor};
use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// An API key or header value. `Debug` prints `Secret(…)`; there is no `Display`, so a secret
/// cannot end up in a message by accident. Read it with [`Secret::expose`] where it is sent.
///
/// It serialises as a plain string because the settings document is stored as JSON; exporting
/// without secrets blanks them first (see `settings::export`).
#[derive(Clone, PartialEq, Eq, Default)]
pub struct Secret(String);

impl Secret {
    pub fn new(value: impl Into<String>) -> Self {
        Secret(value.into())
    }

    /// The value itself, for the one place that sends it.
    pub fn expose(&self) -> &str {
        &self.0
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

impl fmt::Debug for Secret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Secret(…)")
    }
}

impl Serialize for Secret {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(&self.0)
    }
}

impl<'de> Deserialize<'de> for Secret {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_any(SecretVisitor)
    }
}

/// Accepts only strings, and words its errors itself: serde's default "invalid type: integer
/// `123456`" would copy a mistyped secret into the error message.
struct SecretVisitor;

impl<'de> Visitor<'de> for SecretVisitor {
    type Value = Secret;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a string")
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<Secret, E> {
        Ok(Secret(v.to_string()))
    }

    fn visit_string<E: de::Error>(self, v: String) -> Result<Secret, E> {
        Ok(Secret(v))
    }

    fn visit_bool<E: de::Error>(self, _: bool) -> Result<Secret, E> {
        Err(not_a_string())
    }
    fn visit_i64<E: de::Error>(self, _: i64) -> Result<Secret, E> {
        Err(not_a_string())
    }
    fn visit_u64<E: de::Error>(self, _: u64) -> Result<Secret, E> {
        Err(not_a_string())
    }
    fn visit_f64<E: de::Error>(self, _: f64) -> Result<Secret, E> {
        Err(not_a_string())
    }
    fn visit_unit<E: de::Error>(self) -> Result<Secret, E> {
        Err(not_a_string())
    }
    fn visit_seq<A: de::SeqAccess<'de>>(self, _: A) -> Result<Secret, A::Error> {
        Err(not_a_string())
    }
    fn visit_map<A: de::MapAccess<'de>>(self, _: A) -> Result<Secret, A::Error> {
        Err(not_a_string())
    }
}

fn not_a_string<E: de::Error>() -> E {
    E::custom("a secret (API key or header value) must be a string")
}
