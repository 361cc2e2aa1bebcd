//! A tool result as the tool card shows it: what the model got (core's one reading of the
//! result), in the person's language.

use gemipanel_core::mcp::content::Piece;
use gemipanel_core::mcp::CallToolResult;
use gemipanel_core::text::Text;

/// The result as the card shows it: the structured content the model got when the tool gave
/// one, else its pieces in order (the server's own words as they came, notes worded in the
/// person's language); media are named with their size. `word` is `chrome::word` in the panel.
pub fn result_text(result: &CallToolResult, word: impl Fn(&Text) -> String) -> (String, bool) {
    let reading = result.reading();
    let mut parts = Vec::new();
    if let Some(structured) = reading.structured {
        parts.push(serde_json::to_string_pretty(structured).unwrap_or_default());
    }
    for piece in &reading.pieces {
        match piece {
            Piece::Said(text) if reading.structured.is_none() => parts.push(text.to_string()),
            Piece::Note(text) if reading.structured.is_none() => parts.push(word(text)),
            Piece::Medium { mime, data } => parts.push(word(&medium(mime, data))),
            Piece::Said(_) | Piece::Note(_) => {}
        }
    }
    (parts.join("\n\n"), reading.is_error)
}

fn medium(mime: &str, data: &str) -> Text {
    let kb = data.len() * 3 / 4 / 1024;
    Text::new("panelResultMedium").arg(mime).arg(kb)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::{json, Value};

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
    fn media_are_named_with_their_size() {
        let r = result(
            json!({"content": [{"type": "image", "data": "A".repeat(4096), "mimeType": "image/png"}]}),
        );
        assert_eq!(result_text(&r, |t| t.to_string()).0, "[image/png, 3 KB]");
    }

    #[test]
    fn the_card_shows_the_structured_content_the_model_got_not_its_text_copy() {
        let r = result(json!({
            "content": [{"type": "text", "text": "x is 1"}, {"type": "image", "data": "AAAA", "mimeType": "image/png"}],
            "structuredContent": {"x": 1}
        }));
        assert_eq!(result_text(&r, |t| t.to_string()).0, "{\n  \"x\": 1\n}\n\n[image/png, 0 KB]");
        let failed = result(json!({
            "content": [{"type": "text", "text": "no x"}], "structuredContent": {"x": 1}, "isError": true
        }));
        assert_eq!(result_text(&failed, |t| t.to_string()), ("no x".to_owned(), true));
    }

    #[test]
    fn resources_links_and_unknown_blocks_show_what_the_model_reads() {
        let r = result(json!({"content": [
            {"type": "resource_link", "uri": "file:///a.txt", "name": "a"},
            {"type": "resource", "resource": {"uri": "file:///b", "text": "b"}},
            {"type": "hologram", "depth": 3},
        ]}));
        assert_eq!(
            result_text(&r, |t| t.to_string()).0,
            "[link a: file:///a.txt]\n\n[resource file:///b]\n\nb\n\n{\"type\":\"hologram\",\"depth\":3}"
        );
    }
}
