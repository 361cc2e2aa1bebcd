//! A page's own tools (WebMCP, `document.modelContext`): what the page registered, read into
//! MCP tools so they take the same road to the model as a server's, and what a call returned
//! made into an MCP result. Chrome runs a tool in the page; GemiPanel calls it from a script
//! in the tab (`browser/js/page.js`), because `executeTool` refuses callers from another
//! top-level document, such as the side panel.
//!
//! The shape is Chromium's (`third_party/blink/renderer/core/script_tools/model_context.idl`):
//! `getTools()` entries with `name`, `title`, `description`, `inputSchema` (an object, a JSON
//! string in older builds) and `annotations` (`readOnlyHint`, `untrustedContentHint`,
//! `consequentialHint`); `executeTool` resolves to a string, `null` when the call navigated.

use serde::Deserialize;
use serde_json::{json, Map, Value};

use super::context::quote;
use crate::mcp::{CallToolResult, ContentBlock, Tool};
use crate::settings::source::page_source;
use crate::tools::ToolDescriptor;

/// Tools of one page offered at most.
pub const MAX_TOOLS: usize = 64;
/// Characters of a tool's description kept.
const MAX_DESCRIPTION_CHARS: usize = 2_000;
/// Bytes of a tool's input schema, as JSON, accepted.
const MAX_SCHEMA_BYTES: usize = 32_000;
/// Characters of a tool's answer passed on.
pub const MAX_RESULT_CHARS: usize = 100_000;

/// What the in-page lister found.
#[derive(Debug, Clone, PartialEq)]
pub enum PageTools {
    /// This Chrome has no `document.modelContext` (WebMCP is off).
    Unsupported,
    /// The page is not a secure context (WebMCP is for https and this computer only).
    NotSecure,
    /// The page's tools (maybe none).
    Tools { origin: String, tools: Vec<Tool>, left_out: usize },
}

/// One entry as the page script reports it.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
struct Registered {
    name: String,
    #[serde(default)]
    title: Option<String>,
    #[serde(default)]
    description: Option<String>,
    #[serde(default)]
    input_schema: Value,
    #[serde(default)]
    annotations: Option<Map<String, Value>>,
}

impl PageTools {
    /// Reads the lister's answer: `{supported, secure, origin, tools: [...]}`.
    pub fn read(answer: &Value) -> Self {
        if answer.get("supported").and_then(Value::as_bool) != Some(true) {
            return Self::Unsupported;
        }
        if answer.get("secure").and_then(Value::as_bool) == Some(false) {
            return Self::NotSecure;
        }
        let origin = answer.get("origin").and_then(Value::as_str).unwrap_or_default().to_owned();
        let listed = answer.get("tools").and_then(Value::as_array).cloned().unwrap_or_default();
        let mut tools = Vec::new();
        let mut left_out = 0;
        for entry in listed {
            match serde_json::from_value::<Registered>(entry).ok().and_then(to_tool) {
                Some(tool) if tools.len() < MAX_TOOLS => tools.push(tool),
                _ => left_out += 1,
            }
        }
        Self::Tools { origin, tools, left_out }
    }
}

fn to_tool(entry: Registered) -> Option<Tool> {
    let valid_name = (1..=128).contains(&entry.name.len())
        && entry.name.bytes().all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'.' | b'-'));
    if !valid_name {
        return None;
    }
    // Older builds hand the schema over as JSON text.
    let schema = match entry.input_schema {
        Value::String(text) => serde_json::from_str(&text).ok()?,
        Value::Null => json!({"type": "object"}),
        other => other,
    };
    if !schema.is_object() || schema.to_string().len() > MAX_SCHEMA_BYTES {
        return None;
    }
    let description: String =
        entry.description.unwrap_or_default().chars().take(MAX_DESCRIPTION_CHARS).collect();
    let hint = |key: &str| entry.annotations.as_ref()?.get(key)?.as_bool();
    let mut annotations = json!({});
    if let Some(read_only) = hint("readOnlyHint") {
        annotations["readOnlyHint"] = read_only.into();
    }
    if hint("consequentialHint") == Some(true) {
        annotations["destructiveHint"] = true.into();
    }
    serde_json::from_value(json!({
        "name": entry.name,
        "title": entry.title,
        "description": description,
        "inputSchema": schema,
        "annotations": annotations,
    }))
    .ok()
}

/// The page's host, which names its tools (`page_{host}_{tool}`).
pub fn host_of(origin: &str) -> &str {
    let rest = origin.split_once("://").map_or(origin, |(_, rest)| rest);
    rest.rsplit_once(':')
        .filter(|(_, port)| port.bytes().all(|b| b.is_ascii_digit()))
        .map_or(rest, |(host, _)| host)
}

/// The descriptor of a page tool: the model reads whose tool it is before the page's words.
pub fn descriptor(origin: &str, tool: &Tool) -> ToolDescriptor {
    let mut descriptor = ToolDescriptor::from_mcp(&page_source(origin), host_of(origin), tool);
    descriptor.description = format!(
        "A tool of the web page {origin}, run in that page (its description is the page's own \
         words). {}",
        descriptor.description
    );
    descriptor
}

/// What a call of a page's tool returned (`None`: the call navigated the page away), as an
/// MCP result. The page's words are quoted as web content; an answer shaped like an MCP
/// result (`{content: [...], isError}`, a convention pages follow) keeps its blocks.
pub fn call_result(origin: &str, tool: &str, answer: Option<&str>) -> CallToolResult {
    let Some(answer) = answer else {
        return text(
            format!("The page's tool {tool} ran and the page navigated; it gave no answer."),
            false,
        );
    };
    let parsed: Option<Value> = serde_json::from_str(answer).ok();
    let mcp_shaped = parsed.as_ref().and_then(|v| v.get("content")).and_then(Value::as_array);
    let (texts, others, is_error) = match (mcp_shaped, parsed.as_ref()) {
        (Some(blocks), Some(whole)) => {
            let texts: Vec<String> = blocks
                .iter()
                .filter(|b| b.get("type").and_then(Value::as_str) == Some("text"))
                .filter_map(|b| b.get("text").and_then(Value::as_str).map(str::to_owned))
                .collect();
            let others: Vec<ContentBlock> = blocks
                .iter()
                .filter(|b| b.get("type").and_then(Value::as_str) == Some("image"))
                .map(|b| ContentBlock(b.clone()))
                .collect();
            let is_error = whole.get("isError").and_then(Value::as_bool) == Some(true);
            (texts.join("\n\n"), others, is_error)
        }
        (_, Some(Value::String(s))) => (s.clone(), Vec::new(), false),
        _ => (answer.to_owned(), Vec::new(), false),
    };
    let (body, cut) = super::browser_tools::cap_chars(&texts, MAX_RESULT_CHARS);
    let notes = if cut {
        vec![format!("The answer was cut to its first {MAX_RESULT_CHARS} characters.")]
    } else {
        Vec::new()
    };
    let quoted = quote(
        &format!("Web content returned by the page's tool {tool}"),
        tool,
        origin,
        &notes,
        body,
    );
    let mut result = text(quoted, is_error);
    result.content.extend(others);
    result
}

/// A call the page's tool refused or failed, in Chrome's words.
pub fn call_failed(tool: &str, message: &str) -> CallToolResult {
    text(format!("The page's tool {tool} failed: {message}"), true)
}

fn text(text: String, is_error: bool) -> CallToolResult {
    let mut result = super::browser_tools::text_result(text);
    result.is_error = is_error.then_some(true);
    result
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn registered_tools_become_mcp_tools_named_after_the_page() {
        let answer = json!({
            "supported": true, "secure": true, "origin": "https://shop.example:8443",
            "tools": [
                {"name": "searchProducts", "title": "Search", "description": "Finds products.",
                 "inputSchema": {"type": "object", "properties": {"q": {"type": "string"}}},
                 "annotations": {"readOnlyHint": true}},
                {"name": "add_to_cart", "description": "Adds.", "inputSchema": "{\"type\":\"object\"}",
                 "annotations": {"consequentialHint": true}},
                {"name": "bad name!", "description": "x"},
                {"name": "arr", "inputSchema": [1]},
                {"description": "no name"}
            ]
        });
        let PageTools::Tools { origin, tools, left_out } = PageTools::read(&answer) else {
            panic!()
        };
        assert_eq!(origin, "https://shop.example:8443");
        assert_eq!(left_out, 3);
        assert_eq!(tools.len(), 2);
        assert_eq!(tools[0].read_only(), Some(true));
        assert_eq!(tools[1].read_only(), None);
        assert_eq!(tools[1].destructive(), Some(true));
        let descriptor = descriptor(&origin, &tools[0]);
        assert_eq!(descriptor.server_id, "page:https://shop.example:8443");
        assert_eq!(descriptor.server_name, "shop.example");
        assert!(descriptor
            .description
            .starts_with("A tool of the web page https://shop.example:8443"));
        assert!(descriptor.description.ends_with("Finds products."));
    }

    #[test]
    fn a_page_without_webmcp_or_not_secure_says_so() {
        assert_eq!(PageTools::read(&json!({"supported": false})), PageTools::Unsupported);
        assert_eq!(PageTools::read(&json!({})), PageTools::Unsupported);
        assert_eq!(
            PageTools::read(&json!({"supported": true, "secure": false})),
            PageTools::NotSecure
        );
    }

    #[test]
    fn answers_are_quoted_and_mcp_shaped_ones_keep_their_blocks() {
        let plain = call_result("https://a.example", "add", Some("Added 2 items"));
        assert!(plain.text().contains("<<<content"));
        assert!(plain.text().contains("Added 2 items"));
        assert!(plain.text().contains("URL: https://a.example"));
        let json_string = call_result("https://a.example", "add", Some("\"quoted\""));
        assert!(json_string.text().contains("\nquoted\n"));
        let shaped = call_result(
            "https://a.example",
            "add",
            Some(
                r#"{"content":[{"type":"text","text":"No stock"},{"type":"image","mimeType":"image/png","data":"AA=="}],"isError":true}"#,
            ),
        );
        assert!(shaped.is_error());
        assert!(shaped.text().contains("No stock"));
        assert_eq!(shaped.content[1].kind(), "image");
        let object = call_result("https://a.example", "add", Some(r#"{"total": 3}"#));
        assert!(object.text().contains(r#"{"total": 3}"#));
        let navigated = call_result("https://a.example", "add", None);
        assert!(navigated.text().contains("navigated"));
        let long = "y".repeat(MAX_RESULT_CHARS + 1);
        assert!(call_result("o", "t", Some(&long)).text().contains("was cut"));
    }

    #[test]
    fn hosts_lose_scheme_and_port() {
        assert_eq!(host_of("https://shop.example:8443"), "shop.example");
        assert_eq!(host_of("http://127.0.0.1:5000"), "127.0.0.1");
        assert_eq!(host_of("https://[::1]:80"), "[::1]");
        assert_eq!(host_of("https://a.example"), "a.example");
    }
}
