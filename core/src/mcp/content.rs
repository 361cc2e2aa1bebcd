//! The one reading of a tool result: what the model gets (`gemini::tool_result`) and what the
//! tool card shows (the side panel's `tool_text`) both start here, so the two cannot disagree
//! on structured content, embedded resources or block kinds newer than this client.
//!
//! Block kinds: https://modelcontextprotocol.io/specification/2025-11-25/server/tools#tool-result

use std::borrow::Cow;

use serde::Deserialize;
use serde_json::{json, Map, Value};

use super::types::{CallToolResult, ContentBlock, ReadResourceResult};
use crate::text::Text;

/// A content block read by its kind. Borrowed from the block as the server sent it.
#[derive(Debug, PartialEq, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Block<'a> {
    Text {
        text: &'a str,
    },
    Image {
        #[serde(rename = "mimeType")]
        mime_type: &'a str,
        data: &'a str,
    },
    Audio {
        #[serde(rename = "mimeType")]
        mime_type: &'a str,
        data: &'a str,
    },
    Resource {
        #[serde(borrow)]
        resource: EmbeddedResource<'a>,
    },
    ResourceLink {
        uri: &'a str,
        #[serde(default, borrow)]
        name: Option<&'a str>,
    },
}

/// The `resource` of an embedded resource block: text or base64 `blob`.
#[derive(Debug, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct EmbeddedResource<'a> {
    pub uri: &'a str,
    #[serde(default, borrow)]
    pub mime_type: Option<&'a str>,
    #[serde(default, borrow)]
    pub text: Option<&'a str>,
    #[serde(default, borrow)]
    pub blob: Option<&'a str>,
}

impl ContentBlock {
    /// The block by its kind; `None` for a kind newer than this client, or a known kind
    /// missing what it needs (an image without data).
    pub fn read(&self) -> Option<Block<'_>> {
        Block::deserialize(&self.0).ok()
    }
}

/// One piece of what a result says, in the order of its blocks.
#[derive(Debug, PartialEq)]
pub enum Piece<'a> {
    /// The tool's own words: a text block, an embedded text resource, or a block of an unknown
    /// kind as JSON (its base64 payloads replaced by their size).
    Said(Cow<'a, str>),
    /// Something about the result, worded for whoever reads it: the model in English, the
    /// person in their language.
    Note(Text),
    /// Base64 media: an image, audio, or an embedded resource's blob.
    Medium { mime: &'a str, data: &'a str },
}

/// A `tools/call` result read once.
#[derive(Debug, PartialEq)]
pub struct Reading<'a> {
    pub pieces: Vec<Piece<'a>>,
    /// The structured content that stands for the result, when it succeeded: its text blocks
    /// are then a serialisation of the same object and are left out by both readers.
    pub structured: Option<&'a Value>,
    pub is_error: bool,
}

impl CallToolResult {
    pub fn reading(&self) -> Reading<'_> {
        let mut pieces = Vec::new();
        for block in &self.content {
            read_block(block, &mut pieces);
        }
        let structured =
            self.structured_content.as_ref().filter(|v| !v.is_null() && !self.is_error());
        Reading { pieces, structured, is_error: self.is_error() }
    }
}

impl Reading<'_> {
    /// The pieces that are words (said or noted), rendered with `word`.
    pub fn words(&self, word: impl Fn(&Text) -> String) -> Vec<String> {
        self.pieces
            .iter()
            .filter_map(|piece| match piece {
                Piece::Said(text) => Some(text.to_string()),
                Piece::Note(text) => Some(word(text)),
                Piece::Medium { .. } => None,
            })
            .collect()
    }
}

fn read_block<'a>(block: &'a ContentBlock, pieces: &mut Vec<Piece<'a>>) {
    match block.read() {
        Some(Block::Text { text }) => pieces.push(Piece::Said(Cow::Borrowed(text))),
        Some(Block::Image { mime_type, data } | Block::Audio { mime_type, data }) => {
            pieces.push(Piece::Medium { mime: mime_type, data })
        }
        Some(Block::Resource { resource }) => read_resource(resource, pieces),
        Some(Block::ResourceLink { uri, name }) => pieces.push(Piece::Note(match name {
            Some(name) if !name.is_empty() => Text::new("resultLinkNamed").arg(name).arg(uri),
            _ => Text::new("resultLink").arg(uri),
        })),
        None if matches!(block.kind(), "image" | "audio") => {
            pieces.push(Piece::Note(Text::new("resultMediumDropped")))
        }
        None => pieces.push(Piece::Said(Cow::Owned(without_payload(&block.0).to_string()))),
    }
}

/// An embedded resource, or one of the contents of `resources/read`: named by its URI, then
/// its text or its bytes.
fn read_resource<'a>(resource: EmbeddedResource<'a>, pieces: &mut Vec<Piece<'a>>) {
    let EmbeddedResource { uri, mime_type, text, blob } = resource;
    match (text, blob) {
        (Some(text), _) => {
            pieces.push(Piece::Note(Text::new("resultResource").arg(uri)));
            pieces.push(Piece::Said(Cow::Borrowed(text)));
        }
        (None, Some(data)) => {
            let mime = mime_type.unwrap_or("application/octet-stream");
            pieces.push(Piece::Note(Text::new("resultResource").arg(uri)));
            pieces.push(Piece::Medium { mime, data });
        }
        (None, None) => pieces.push(Piece::Note(Text::new("resultResourceEmpty").arg(uri))),
    }
}

impl ReadResourceResult {
    /// The contents read as an embedded resource is (the same pieces, in order).
    pub fn pieces(&self) -> Vec<Piece<'_>> {
        let mut pieces = Vec::new();
        for c in &self.contents {
            let resource = EmbeddedResource {
                uri: &c.uri,
                mime_type: c.mime_type.as_deref(),
                text: c.text.as_deref(),
                blob: c.blob.as_deref(),
            };
            read_resource(resource, &mut pieces);
        }
        pieces
    }
}

/// The value with base64 fields (`data`, `blob`, at any depth) replaced by their size.
fn without_payload(value: &Value) -> Value {
    match value {
        Value::Object(fields) => {
            let mut out = Map::new();
            for (key, field) in fields {
                let replaced = match (key.as_str(), field) {
                    ("data" | "blob", Value::String(s)) => {
                        json!(format!("[{} base64 characters]", s.len()))
                    }
                    _ => without_payload(field),
                };
                out.insert(key.clone(), replaced);
            }
            Value::Object(out)
        }
        Value::Array(items) => Value::Array(items.iter().map(without_payload).collect()),
        other => other.clone(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn result(value: Value) -> CallToolResult {
        serde_json::from_value(value).unwrap()
    }

    #[test]
    fn blocks_are_read_by_kind_borrowing_from_the_server_s_json() {
        let r = result(json!({"content": [
            {"type": "text", "text": "a \"quoted\" line", "annotations": {"audience": ["user"]}},
            {"type": "image", "mimeType": "image/png", "data": "AAAA"},
            {"type": "resource", "resource": {"uri": "file:///b", "text": "b"}},
            {"type": "resource", "resource": {"uri": "file:///c", "mimeType": "application/pdf", "blob": "JVBE"}},
            {"type": "resource_link", "uri": "file:///d", "name": "d"},
        ]}));
        let reading = r.reading();
        assert_eq!(
            reading.pieces,
            vec![
                Piece::Said(Cow::Borrowed("a \"quoted\" line")),
                Piece::Medium { mime: "image/png", data: "AAAA" },
                Piece::Note(Text::new("resultResource").arg("file:///b")),
                Piece::Said(Cow::Borrowed("b")),
                Piece::Note(Text::new("resultResource").arg("file:///c")),
                Piece::Medium { mime: "application/pdf", data: "JVBE" },
                Piece::Note(Text::new("resultLinkNamed").arg("d").arg("file:///d")),
            ]
        );
        assert_eq!(reading.structured, None);
    }

    #[test]
    fn unknown_kinds_are_said_as_json_without_their_bytes_and_broken_media_noted() {
        let r = result(json!({"content": [
            {"type": "hologram", "data": "QUJD", "depth": 3},
            {"no": "type"},
            {"type": "image", "mimeType": "image/png"},
        ]}));
        let pieces = r.reading().pieces;
        let Piece::Said(hologram) = &pieces[0] else { panic!("{pieces:?}") };
        assert!(hologram.contains("\"depth\":3") && hologram.contains("[4 base64 characters]"));
        assert!(!hologram.contains("QUJD"));
        assert_eq!(pieces[1], Piece::Said(Cow::Borrowed("{\"no\":\"type\"}")));
        assert_eq!(pieces[2], Piece::Note(Text::new("resultMediumDropped")));
    }

    #[test]
    fn read_contents_are_pieces_as_embedded_resources_are() {
        let read: ReadResourceResult = serde_json::from_value(json!({"contents": [
            {"uri": "test://a", "mimeType": "text/plain", "text": "hello"},
            {"uri": "test://b", "mimeType": "image/png", "blob": "iVBO"},
            {"uri": "test://c"},
        ]}))
        .unwrap();
        assert_eq!(
            read.pieces(),
            vec![
                Piece::Note(Text::new("resultResource").arg("test://a")),
                Piece::Said(Cow::Borrowed("hello")),
                Piece::Note(Text::new("resultResource").arg("test://b")),
                Piece::Medium { mime: "image/png", data: "iVBO" },
                Piece::Note(Text::new("resultResourceEmpty").arg("test://c")),
            ]
        );
    }

    #[test]
    fn structured_content_stands_for_a_successful_result_only() {
        let ok = result(
            json!({"content": [{"type": "text", "text": "{}"}], "structuredContent": {"x": 1}}),
        );
        assert_eq!(ok.reading().structured, Some(&json!({"x": 1})));
        let failed = result(json!({"content": [], "structuredContent": {"x": 1}, "isError": true}));
        let reading = failed.reading();
        assert_eq!((reading.structured, reading.is_error), (None, true));
        let null = result(json!({"content": [], "structuredContent": null}));
        assert_eq!(null.reading().structured, None);
    }
}
