//! The rules a settings document obeys, shared by load, edits and import.

use std::fmt;

use serde_json::Value;

use super::document::{same_name, Headers, Server, ServerId, Settings};
use super::secret::Secret;
use crate::mcp::{is_header_name, is_header_value};
use crate::url_policy::{self, Policy, UrlRefusal};

/// Which field a problem is about, so the popup can show the message next to it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Field {
    ApiKey,
    Model,
    ServerId,
    Name,
    Url,
    Headers,
    Timeout,
    ToolFilters,
    AllowedTools,
    /// The document as a whole (shape, version, number of servers).
    Document,
}

/// One broken rule. `Display` is a sentence for a person; it never contains a secret.
#[derive(Debug, Clone, PartialEq)]
pub struct Invalid {
    pub field: Field,
    /// The server's name when the problem is about one server.
    pub server: Option<String>,
    pub message: String,
    /// Set when the URL policy refused the URL.
    pub url_refusal: Option<UrlRefusal>,
}

impl Invalid {
    pub fn new(field: Field, message: impl Into<String>) -> Self {
        Invalid { field, server: None, message: message.into(), url_refusal: None }
    }

    pub fn on_server(mut self, name: &str) -> Self {
        self.server = Some(name.to_string());
        self
    }
}

impl fmt::Display for Invalid {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.server {
            Some(name) => write!(f, "server “{name}”: {}", self.message),
            None => f.write_str(&self.message),
        }
    }
}

pub const MAX_SERVERS: usize = 100;
pub const MAX_NAME_CHARS: usize = 64;
pub const MIN_TIMEOUT_MS: u64 = 100;
pub const MAX_TIMEOUT_MS: u64 = 3_600_000;
const MAX_TOOL_NAME_CHARS: usize = 128;

/// Checks the whole document: each server, and that ids and names are unique.
pub fn validate(doc: &Settings) -> Result<(), Invalid> {
    validate_model(&doc.gemini.model)?;
    if let Some(key) = &doc.gemini.api_key {
        validate_api_key(key)?;
    }
    if let Some(base_url) = &doc.gemini.base_url {
        // The same rule as for servers: https, or http on this computer.
        url_policy::check(base_url, Policy::Configured { local_network: false }).map_err(|r| {
            Invalid::new(Field::Document, format!("the Gemini API address is refused: {r}"))
        })?;
    }
    if doc.servers.len() > MAX_SERVERS {
        return Err(Invalid::new(
            Field::Document,
            format!("at most {MAX_SERVERS} servers can be configured"),
        ));
    }
    // At most 100 servers: a scan of the ones before is quick enough.
    for (i, server) in doc.servers.iter().enumerate() {
        validate_server(server)?;
        let before = &doc.servers[..i];
        if before.iter().any(|s| s.id == server.id) {
            return Err(Invalid::new(Field::ServerId, "two servers have the same id")
                .on_server(&server.name));
        }
        if before.iter().any(|s| same_name(&s.name, &server.name)) {
            return Err(duplicate_name(&server.name));
        }
    }
    Ok(())
}

pub fn duplicate_name(name: &str) -> Invalid {
    Invalid::new(Field::Name, format!("a server named “{}” already exists", name.trim()))
}

/// Checks one server on its own (not its uniqueness among others).
pub fn validate_server(server: &Server) -> Result<(), Invalid> {
    let name = server.name.as_str();
    let on = |e: Invalid| e.on_server(name);
    if ServerId::parse(server.id.as_str()).is_none() {
        return Err(on(Invalid::new(Field::ServerId, "the server id is malformed")));
    }
    validate_name(name)?;
    validate_url(&server.url, server.local_network).map_err(on)?;
    validate_headers(&server.headers).map_err(on)?;
    validate_timeout(server.timeout_ms).map_err(on)?;
    let include = server.include_tools.iter().flatten();
    for tool in include.chain(&server.exclude_tools) {
        validate_tool_name(tool, Field::ToolFilters).map_err(on)?;
    }
    for tool in &server.allowed_tools {
        validate_tool_name(tool, Field::AllowedTools).map_err(on)?;
    }
    Ok(())
}

pub fn validate_name(name: &str) -> Result<(), Invalid> {
    let trimmed = name.trim();
    if trimmed.is_empty() {
        return Err(Invalid::new(Field::Name, "the server needs a name"));
    }
    if trimmed != name {
        return Err(Invalid::new(Field::Name, "the name must not start or end with spaces"));
    }
    if name.chars().count() > MAX_NAME_CHARS {
        return Err(Invalid::new(
            Field::Name,
            format!("the name is longer than {MAX_NAME_CHARS} characters"),
        ));
    }
    if name.chars().any(char::is_control) {
        return Err(Invalid::new(Field::Name, "the name contains control characters"));
    }
    Ok(())
}

/// Checks a server URL with the user's tick; returns the normalised form to store.
pub fn validate_url(url: &str, local_network: bool) -> Result<String, Invalid> {
    url_policy::check(url, Policy::Configured { local_network }).map(String::from).map_err(
        |refusal| Invalid {
            field: Field::Url,
            server: None,
            message: refusal.to_string(),
            url_refusal: Some(refusal),
        },
    )
}

pub fn validate_timeout(ms: u64) -> Result<(), Invalid> {
    if (MIN_TIMEOUT_MS..=MAX_TIMEOUT_MS).contains(&ms) {
        Ok(())
    } else {
        Err(Invalid::new(
            Field::Timeout,
            format!("the timeout must be between {MIN_TIMEOUT_MS} ms and {MAX_TIMEOUT_MS} ms (one hour)"),
        ))
    }
}

pub fn validate_model(model: &str) -> Result<(), Invalid> {
    let ok = !model.is_empty()
        && model.len() <= 128
        && model.bytes().all(|b| b.is_ascii_alphanumeric() || b"-._/".contains(&b));
    if ok {
        Ok(())
    } else {
        Err(Invalid::new(
            Field::Model,
            "the model name may only contain letters, digits, “-”, “.”, “_” and “/”",
        ))
    }
}

pub fn validate_api_key(key: &Secret) -> Result<(), Invalid> {
    let k = key.expose();
    if k.is_empty() || k.len() > 512 || k.bytes().any(|b| !b.is_ascii_graphic()) {
        // Deliberately says nothing about the key's content.
        return Err(Invalid::new(
            Field::ApiKey,
            "the API key must be non-empty printable ASCII without spaces",
        ));
    }
    Ok(())
}

/// Headers the browser or the MCP client sets itself; a user value would break the connection.
const RESERVED_HEADERS: [&str; 12] = [
    "host",
    "content-length",
    "connection",
    "cookie",
    "origin",
    "referer",
    "transfer-encoding",
    "mcp-session-id",
    "mcp-protocol-version",
    "mcp-method",
    "mcp-name",
    "last-event-id",
];

pub fn validate_headers(headers: &Headers) -> Result<(), Invalid> {
    for (i, (name, value)) in headers.iter().enumerate() {
        validate_header(name, value)?;
        if headers.iter().take(i).any(|(seen, _)| seen.eq_ignore_ascii_case(name)) {
            return Err(Invalid::new(Field::Headers, format!("the header {name} is given twice")));
        }
    }
    Ok(())
}

fn validate_header(name: &str, value: &Secret) -> Result<(), Invalid> {
    if !is_header_name(name) {
        return Err(Invalid::new(
            Field::Headers,
            format!("“{}” is not a valid header name", name.escape_debug()),
        ));
    }
    if RESERVED_HEADERS.contains(&name.to_ascii_lowercase().as_str()) {
        return Err(Invalid::new(
            Field::Headers,
            format!("the header {name} is set by the browser or the MCP client and cannot be configured"),
        ));
    }
    // Header values are secrets: name the header, never echo the value.
    if !is_header_value(value.expose()) {
        return Err(Invalid::new(
            Field::Headers,
            format!(
                "the value of header {name} contains a line break, a NUL or a character beyond \
                 Latin-1, which HTTP headers cannot carry"
            ),
        ));
    }
    Ok(())
}

/// Parses the headers box of the server form: a JSON object of strings. The popup calls this as
/// the user types; the edit checks the result again.
pub fn parse_headers(text: &str) -> Result<Headers, Invalid> {
    if text.trim().is_empty() {
        return Ok(Headers::new());
    }
    let value: Value = serde_json::from_str(text).map_err(|e| {
        // serde_json's syntax errors give a position, never the input.
        Invalid::new(
            Field::Headers,
            format!(
                "headers must be a JSON object such as {{\"Authorization\": \"Bearer …\"}} ({e})"
            ),
        )
    })?;
    let Value::Object(map) = value else {
        return Err(Invalid::new(
            Field::Headers,
            "headers must be a JSON object of names and string values",
        ));
    };
    let mut headers = Headers::new();
    for (name, value) in map {
        let Value::String(value) = value else {
            return Err(Invalid::new(
                Field::Headers,
                format!("the value of header {name} must be a string"),
            ));
        };
        headers.insert(name, Secret::new(value));
    }
    validate_headers(&headers)?;
    Ok(headers)
}

pub fn validate_tool_name(tool: &str, field: Field) -> Result<(), Invalid> {
    if tool.is_empty()
        || tool.chars().count() > MAX_TOOL_NAME_CHARS
        || tool.chars().any(char::is_control)
    {
        return Err(Invalid::new(
            field,
            format!("“{}” is not a valid tool name", tool.escape_debug()),
        ));
    }
    Ok(())
}
