//! A tool result as the tool card shows it.

use gemipanel_core::mcp::{CallToolResult, ContentBlock};

/// The result's text (structured content as JSON when there is no text), and whether the tool
/// reported an error.
pub fn result_text(result: &CallToolResult) -> (String, bool) {
    let mut parts = Vec::new();
    for block in &result.content {
        parts.push(match block {
            ContentBlock::Text { text } => text.clone(),
            ContentBlock::Image { mime_type, data } => {
                format!("[image {mime_type}, {} KB]", data.len() * 3 / 4 / 1024)
            }
            ContentBlock::Audio { mime_type, .. } => format!("[audio {mime_type}]"),
            ContentBlock::Resource { .. } => "[embedded resource]".to_owned(),
            ContentBlock::ResourceLink { resource } => format!("[link {}]", resource.uri),
            ContentBlock::Unknown => "[content of an unknown type]".to_owned(),
        });
    }
    if parts.is_empty() {
        if let Some(structured) = &result.structured_content {
            parts.push(serde_json::to_string_pretty(structured).unwrap_or_default());
        }
    }
    (parts.join("\n\n"), result.is_error)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn result(value: serde_json::Value) -> CallToolResult {
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
}
