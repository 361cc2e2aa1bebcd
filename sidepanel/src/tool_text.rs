//! A tool result as the tool card shows it.

use gemipanel_core::mcp::CallToolResult;
use gemipanel_core::text::Text;
use serde_json::Value;

/// The result as the card shows it, block by block (structured content as JSON when there is no
/// text): the server's own text as it came, other blocks named with a text to word in the
/// person's language. `word` is `chrome::word` in the panel.
pub fn result_text(result: &CallToolResult, word: impl Fn(&Text) -> String) -> (String, bool) {
    let str_of = |v: &Value, key: &str| v.get(key).and_then(Value::as_str).unwrap_or("").to_owned();
    let mut parts = Vec::new();
    for block in &result.content {
        let block = &block.0;
        parts.push(match block.get("type").and_then(Value::as_str) {
            Some("text") => str_of(block, "text"),
            Some("image") => {
                let size = block.get("data").and_then(Value::as_str).map_or(0, str::len);
                let kb = size * 3 / 4 / 1024;
                word(&Text::new("panelResultImage").arg(str_of(block, "mimeType")).arg(kb))
            }
            Some("audio") => word(&Text::new("panelResultAudio").arg(str_of(block, "mimeType"))),
            Some("resource") => word(&Text::new("panelResultResource")),
            Some("resource_link") => word(&Text::new("panelResultLink").arg(str_of(block, "uri"))),
            _ => word(&Text::new("panelResultUnknown")),
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
        assert_eq!(result_text(&r, |t| t.to_string()), ("a\n\nb".to_owned(), false));
        let r = result(json!({"content": [{"type": "text", "text": "boom"}], "isError": true}));
        assert_eq!(result_text(&r, |t| t.to_string()), ("boom".to_owned(), true));
    }

    #[test]
    fn images_are_described_and_structured_content_shown_without_text() {
        let r = result(
            json!({"content": [{"type": "image", "data": "AAAA", "mimeType": "image/png"}]}),
        );
        assert_eq!(result_text(&r, |t| t.to_string()).0, "[image image/png, 0 KB]");
        let r = result(json!({"content": [], "structuredContent": {"x": 1}}));
        assert_eq!(result_text(&r, |t| t.to_string()).0, "{\n  \"x\": 1\n}");
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
            result_text(&r, |t| t.to_string()).0,
            "[link file:///a.txt]\n\n[embedded resource]\n\n[content of an unknown type]\n\n[content of an unknown type]"
        );
    }
}
