//! JSON with comments, as gemini-cli's `settings.json` allows (its own docs show a
//! commented-out `// "excludeTools": …` line).

use std::io::Read;

/// Replaces `// line` and `/* block */` comments outside strings with spaces
/// (`json_comments`), so that JSON error positions still point at the right place (a block
/// comment's line breaks become spaces too: its following lines count one line up).
/// A leading byte-order mark goes too.
pub fn strip_comments(text: &str) -> String {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let mut stripped = String::with_capacity(text.len());
    let mut reader = json_comments::CommentSettings::c_style().strip_comments(text.as_bytes());
    match reader.read_to_string(&mut stripped) {
        Ok(_) => stripped,
        // Only an unterminated block comment fails; it then fails again as JSON.
        Err(_) => text.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn comments_go_strings_stay_and_positions_hold() {
        let text = "{\n  // a comment\n  \"a\": \"// not one\", /* b\n c */ \"d\": 1\n}";
        let stripped = strip_comments(text);
        assert_eq!(stripped.len(), text.len());
        assert_eq!(stripped.find("\"d\""), text.find("\"d\""));
        let value: serde_json::Value = serde_json::from_str(&stripped).unwrap();
        assert_eq!(value, serde_json::json!({"a": "// not one", "d": 1}));
        assert_eq!(strip_comments("\u{feff}{}"), "{}");
    }
}
