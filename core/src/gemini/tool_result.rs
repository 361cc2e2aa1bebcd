//! What a tool call returns, turned into the `functionResponse` the model reads.
//!
//! The API's convention: `response` is `{"output": …}` on success and `{"error": …}` on failure.
//! Images (and audio) cannot live inside `response`, so they travel as `inlineData` parts next to
//! the function responses, in the same user turn.

use serde_json::{json, Value};

use super::wire::Part;
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

/// `response` plus the parts that go after the function responses.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct ConvertedOutcome {
    pub response: Value,
    pub attachments: Vec<Part>,
}

pub(crate) fn convert(outcome: &ToolOutcome) -> ConvertedOutcome {
    match outcome {
        ToolOutcome::Output(value) => plain(json!({ "output": value })),
        ToolOutcome::Error(message) => plain(json!({ "error": message })),
        ToolOutcome::Mcp(result) => convert_mcp(result),
    }
}

fn plain(response: Value) -> ConvertedOutcome {
    ConvertedOutcome { response, attachments: Vec::new() }
}

fn convert_mcp(result: &CallToolResult) -> ConvertedOutcome {
    let mut texts = Vec::new();
    let mut attachments = Vec::new();
    for block in &result.content {
        read_block(&block.0, &mut texts, &mut attachments);
    }
    let text = texts.join("\n\n");
    let response = if result.is_error() {
        let message = if text.is_empty() { "The tool reported an error.".into() } else { text };
        json!({ "error": message })
    } else if let Some(structured) = result.structured_content.as_ref().filter(|v| !v.is_null()) {
        // The text block of a structured result is a serialisation of the same object.
        json!({ "output": structured })
    } else if text.is_empty() && !attachments.is_empty() {
        json!({ "output": format!("{} attachment(s) follow.", attachments.len()) })
    } else {
        json!({ "output": text })
    };
    ConvertedOutcome { response, attachments }
}

fn read_block(block: &Value, texts: &mut Vec<String>, attachments: &mut Vec<Part>) {
    let str_of = |v: &Value, key: &str| v.get(key).and_then(Value::as_str).map(str::to_owned);
    match block.get("type").and_then(Value::as_str) {
        Some("text") => texts.extend(str_of(block, "text")),
        Some("image" | "audio") => match (str_of(block, "mimeType"), str_of(block, "data")) {
            (Some(mime), Some(data)) => attachments.push(Part::inline_data(mime, data)),
            _ => texts.push("[an attachment without data was dropped]".into()),
        },
        Some("resource") => {
            let resource = block.get("resource").unwrap_or(&Value::Null);
            let uri = str_of(resource, "uri").unwrap_or_default();
            if let Some(text) = str_of(resource, "text") {
                texts.push(format!("Resource {uri}:\n{text}"));
            } else if let (Some(mime), Some(blob)) =
                (str_of(resource, "mimeType"), str_of(resource, "blob"))
            {
                if mime.starts_with("image/") {
                    attachments.push(Part::inline_data(mime, blob));
                } else {
                    texts.push(format!("Resource {uri} ({mime}, binary, not shown)"));
                }
            }
        }
        Some("resource_link") => {
            let uri = str_of(block, "uri").unwrap_or_default();
            let name = str_of(block, "name").unwrap_or_default();
            texts.push(format!("Resource link {name} {uri}").trim_end().to_owned());
        }
        _ => texts.push(block.to_string()),
    }
}
