//! A tool result as the tool card shows it.

use gemipanel_core::mcp::CallToolResult;
use serde_json::Value;

/// The result's text (structured content as JSON when there is no text), and whether the tool
/// reported an error.
pub fn result_text(result: &CallToolResult) -> (String, bool) {
    let str_of = |v: &Value, key: &str| v.get(key).and_then(Value::as_str).unwrap_or("").to_owned();
    let mut parts = Vec::new();
    for block in &result.content {
        let block = &block.0;
        parts.push(match block.get("type").and_then(Value::as_str) {
            Some("text") => str_of(block, "text"),
            Some("image") => {
                let size = block.get("data").and_then(Value::as_str).map_or(0, str::len);
                format!("[image {}, {} KB]", str_of(block, "mimeType"), size * 3 / 4 / 1024)
            }
            Some("audio") => format!("[audio {}]", str_of(block, "mimeType")),
            Some("resource") => "[embedded resource]".to_owned(),
            Some("resource_link") => format!("[link {}]", str_of(block, "uri")),
            _ => "[content of an unknown type]".to_owned(),
        });
    }
    if parts.is_empty() {
        if let Some(structured) = result.structured_content.as_ref().filter(|v| !v.is_null()) {
            parts.push(serde_json::to_string_pretty(structured).unwrap_or_default());
        }
    }
    (parts.join("\n\n"), result.is_error())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn result(value: Value) -> CallToolResult {
        serde_json::from_value(value).unwrap()
    }

    #[test]
    fn text_blocks_are_joined_and_errors_flagged() {
        let r = result(
            json!({"content": [{"type": "text", "text": "a"}, {"type": "text", "text": "b"}]}),
        );
        assert_eq!(result_text(&r), ("a\n\nb".to_owned(), false));
        let r = result(json!({"content": [{"type": "text", "text": "boom"}], "isError": true}));
        assert_eq!(result_text(&r), ("boom".to_owned(), true));
    }

    #[test]
    fn images_are_described_and_structured_content_shown_without_text() {
        let r = result(
            json!({"content": [{"type": "image", "data": "AAAA", "mimeType": "image/png"}]}),
        );
        assert_eq!(result_text(&r).0, "[image image/png, 0 KB]");
        let r = result(json!({"content": [], "structuredContent": {"x": 1}}));
        assert_eq!(result_text(&r).0, "{\n  \"x\": 1\n}");
    }

    #[test]
    fn links_resources_and_unknown_blocks_are_named() {
        let r = result(json!({"content": [
            {"type": "resource_link", "uri": "file:///a.txt", "name": "a"},
            {"type": "resource", "resource": {"uri": "file:///b", "text": "b"}},
            {"type": "unknown"},
            {"no": "type"}
        ]}));
        assert_eq!(
            result_text(&r).0,
            "[link file:///a.txt]\n\n[embedded resource]\n\n[content of an unknown type]\n\n[content of an unknown type]"
        );
    }
}
