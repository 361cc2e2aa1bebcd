//! Header values the Streamable HTTP transport derives from the request body.

use base64::engine::general_purpose::STANDARD;
use base64::Engine;

/// `Mcp-Name` / `Mcp-Param-*` value: plain when it is safe visible ASCII, else the
/// `=?base64?…?=` sentinel form the 2026-07-28 transport defines.
pub fn encode_value(value: &str) -> String {
    let plain_ascii = value.bytes().all(|b| b == b' ' || b.is_ascii_graphic());
    let padded = value.starts_with([' ', '\t']) || value.ends_with([' ', '\t']);
    let looks_encoded = value.starts_with("=?base64?") && value.ends_with("?=");
    if plain_ascii && !padded && !looks_encoded && !value.is_empty() {
        value.to_owned()
    } else {
        format!("=?base64?{}?=", to_base64(value.as_bytes()))
    }
}

/// Standard base64 with padding. Into a slice: `Engine::encode` (and `Base64Display`) end in
/// `.expect()` on a UTF-8 error, whose `Debug` was ~1 KB of the worker's wasm.
fn to_base64(bytes: &[u8]) -> String {
    let mut encoded = vec![0; bytes.len().div_ceil(3) * 4];
    // Neither fails: the buffer fits the padded output, which is ASCII.
    let written = STANDARD.encode_slice(bytes, &mut encoded).unwrap_or_default();
    encoded.truncate(written);
    String::from_utf8(encoded).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::{encode_value, to_base64};
    use base64::Engine;

    #[test]
    fn encodes_what_the_spec_lists() {
        assert_eq!(encode_value("us-west1"), "us-west1");
        assert_eq!(encode_value("Hello, 世界"), "=?base64?SGVsbG8sIOS4lueVjA==?=");
        assert_eq!(encode_value(" padded "), "=?base64?IHBhZGRlZCA=?=");
        assert_eq!(encode_value("line1\nline2"), "=?base64?bGluZTEKbGluZTI=?=");
        assert_eq!(encode_value("=?base64?literal?="), "=?base64?PT9iYXNlNjQ/bGl0ZXJhbD89?=");
    }

    #[test]
    fn base64_into_a_slice_is_the_engines_encoding() {
        let text = "aé世\u{1F600}xyz";
        for end in 0..=text.len() {
            let bytes = &text.as_bytes()[..end];
            assert_eq!(to_base64(bytes), base64::engine::general_purpose::STANDARD.encode(bytes));
        }
    }
}
