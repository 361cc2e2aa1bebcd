//! Header values the Streamable HTTP transport derives from the request body.

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
        let encoded = base64::engine::general_purpose::STANDARD.encode(value.as_bytes());
        format!("=?base64?{encoded}?=")
    }
}

#[cfg(test)]
mod tests {
    use super::encode_value;

    #[test]
    fn encodes_what_the_spec_lists() {
        assert_eq!(encode_value("us-west1"), "us-west1");
        assert_eq!(encode_value("Hello, 世界"), "=?base64?SGVsbG8sIOS4lueVjA==?=");
        assert_eq!(encode_value(" padded "), "=?base64?IHBhZGRlZCA=?=");
        assert_eq!(encode_value("line1\nline2"), "=?base64?bGluZTEKbGluZTI=?=");
        assert_eq!(encode_value("=?base64?literal?="), "=?base64?PT9iYXNlNjQ/bGl0ZXJhbD89?=");
    }
}
