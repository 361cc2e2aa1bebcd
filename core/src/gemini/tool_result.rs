//! What a tool call returns, turned into the `functionResponse` the model reads.
//!
//! The API's convention: `response` is `{"output": …}` on success and `{"error": …}` on failure.
//! Images and audio reach the model as media, never as base64 text:
//! - Gemini 3 and later take images, PDFs and plain text inside the function response
//!   (`functionResponse.parts`, each named by a `displayName` that `response` refers to with
//!   `{"$ref": …}`: https://ai.google.dev/gemini-api/docs/function-calling#multimodal);
//! - everything else the model can read (audio, and every medium for older models) travels as
//!   `inlineData` parts after the function responses, in the same user turn;
//! - a type no model reads is named in the text instead.

use serde_json::{json, Value};

use super::wire::{Blob, FunctionResponsePart, Part};
use crate::mcp::content::Piece;
use crate::mcp::CallToolResult;

/// The result of running one [`super::ToolCall`], as the driver reports it.
#[derive(Debug, Clone, PartialEq)]
pub enum ToolOutcome {
    /// A plain value (a local tool, or a result already reduced).
    Output(Value),
    /// An MCP `tools/call` result.
    Mcp(CallToolResult),
    /// No result: the server failed, the person denied the call, the tool is unknown.
    Error(String),
}

/// `response`, the media inside it, and the parts that go after the function responses.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct ConvertedOutcome {
    pub response: Value,
    pub media: Vec<FunctionResponsePart>,
    pub attachments: Vec<Part>,
}

/// Media types a function response may carry inside it (function-calling docs, "Multimodal
/// function responses").
const INSIDE_RESPONSE: &[&str] =
    &["image/png", "image/jpeg", "image/webp", "application/pdf", "text/plain"];

/// Media types the model reads as `inlineData` (https://ai.google.dev/gemini-api/docs/files,
/// supported formats: image, audio and document understanding).
const INLINE: &[&str] = &[
    "image/png",
    "image/jpeg",
    "image/webp",
    "image/heic",
    "image/heif",
    "audio/wav",
    "audio/x-wav",
    "audio/mp3",
    "audio/mpeg",
    "audio/aiff",
    "audio/aac",
    "audio/ogg",
    "audio/flac",
    "application/pdf",
    "text/plain",
];

/// `media_inside`: the model takes media inside function responses (its family says).
pub(crate) fn convert(outcome: &ToolOutcome, media_inside: bool) -> ConvertedOutcome {
    match outcome {
        ToolOutcome::Output(value) => plain(json!({ "output": value })),
        ToolOutcome::Error(message) => plain(json!({ "error": message })),
        ToolOutcome::Mcp(result) => convert_mcp(result, media_inside),
    }
}

fn plain(response: Value) -> ConvertedOutcome {
    ConvertedOutcome { response, media: Vec::new(), attachments: Vec::new() }
}

/// What the blocks of a result come to.
#[derive(Default)]
struct Read {
    texts: Vec<String>,
    media: Vec<FunctionResponsePart>,
    attachments: Vec<Part>,
    media_inside: bool,
}

impl Read {
    /// Base64 `data` of type `mime` (from a content block or a resource's blob).
    fn medium(&mut self, mime: &str, data: &str) {
        let mime = mime.trim().to_ascii_lowercase();
        let essence = mime.split(';').next().unwrap_or_default().trim().to_owned();
        if self.media_inside && INSIDE_RESPONSE.contains(&essence.as_str()) {
            let kind = essence.split('/').next().unwrap_or("file");
            let extension = essence.rsplit('/').next().unwrap_or("bin");
            let name = format!("{kind}_{}.{extension}", self.media.len() + 1);
            self.media.push(FunctionResponsePart {
                inline_data: Blob { display_name: Some(name), ..Blob::new(essence, data) },
            });
        } else if INLINE.contains(&essence.as_str()) {
            self.attachments.push(Part::inline_data(essence, data));
        } else {
            self.texts.push(format!("[{mime} content left out: the model cannot read this type]"));
        }
    }
}

fn convert_mcp(result: &CallToolResult, media_inside: bool) -> ConvertedOutcome {
    let reading = result.reading();
    let mut read = Read { media_inside, ..Read::default() };
    for piece in &reading.pieces {
        match piece {
            Piece::Said(text) => read.texts.push(text.to_string()),
            Piece::Note(text) => read.texts.push(text.to_string()),
            Piece::Medium { mime, data } => read.medium(mime, data),
        }
    }
    let Read { texts, media, attachments, .. } = read;
    let text = texts.join("\n\n");
    let mut response = if reading.is_error {
        let message = if text.is_empty() { "The tool reported an error.".into() } else { text };
        json!({ "error": message })
    } else if let Some(structured) = reading.structured {
        json!({ "output": structured })
    } else if text.is_empty() && !(attachments.is_empty() && media.is_empty()) {
        let count = attachments.len() + media.len();
        json!({ "output": format!("{count} attachment(s) follow.") })
    } else {
        json!({ "output": text })
    };
    if let Some(fields) = response.as_object_mut() {
        for part in &media {
            if let Some(name) = &part.inline_data.display_name {
                let key = name.split('.').next().unwrap_or(name).to_owned();
                fields.insert(key, json!({ "$ref": name }));
            }
        }
    }
    ConvertedOutcome { response, media, attachments }
}
