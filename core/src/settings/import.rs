//! Importing servers from a file: the extension's own export, gemini-cli's `settings.json` or
//! Claude Desktop's `claude_desktop_config.json`. Import never changes anything by itself: it
//! builds an [`ImportPreview`] to show, which becomes a [`SettingsEdit`] when the user agrees.

use std::fmt;

use serde_json::{Map, Value};

use super::document::{same_name, Headers, Server, ServerId, Settings};
use super::edit::SettingsEdit;
use super::export::EXPORT_FORMAT;
use super::jsonc::strip_comments;
use super::migrate::{migrate, MigrationError};
use super::secret::Secret;
use super::validate::{validate_model, validate_server, validate_timeout, validate_url};
use crate::url_policy::RefusalKind;

/// Files larger than this are refused before parsing.
pub const MAX_IMPORT_BYTES: usize = 1 << 20;

/// What kind of file was recognised.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ImportSource {
    GemiPanel,
    GeminiCli,
    ClaudeDesktop,
    /// An `mcpServers` object with nothing that tells gemini-cli and Claude Desktop apart.
    McpServers,
}

impl ImportSource {
    /// The name shown to the person.
    pub fn label(self) -> &'static str {
        match self {
            ImportSource::GemiPanel => "GemiPanel",
            ImportSource::GeminiCli => "gemini-cli",
            ImportSource::ClaudeDesktop => "Claude Desktop",
            ImportSource::McpServers => "mcpServers",
        }
    }
}

/// A server of the file that will not be imported, and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Skipped {
    pub name: String,
    pub reason: String,
}

/// What applying an import would do. Shown to the user first; see [`ImportPreview::into_edit`].
#[derive(Debug, Clone, PartialEq)]
pub struct ImportPreview {
    pub source: ImportSource,
    /// Servers whose names are new.
    pub added: Vec<Server>,
    /// Servers that replace the configuration of a server with the same name (keeping its id).
    pub updated: Vec<Server>,
    pub skipped: Vec<Skipped>,
    /// Things the user should know, e.g. a header that refers to an environment variable.
    pub warnings: Vec<String>,
    /// From the own format only, when the file has them.
    pub api_key: Option<Secret>,
    pub model: Option<String>,
}

impl ImportPreview {
    pub fn is_empty(&self) -> bool {
        self.added.is_empty()
            && self.updated.is_empty()
            && self.api_key.is_none()
            && self.model.is_none()
    }

    /// The edit that applies this preview.
    pub fn into_edit(self) -> SettingsEdit {
        SettingsEdit::Import {
            servers: self.added.into_iter().chain(self.updated).collect(),
            api_key: self.api_key,
            model: self.model,
        }
    }
}

/// Why a file could not be read at all. Never contains the file's content.
#[derive(Debug, Clone, PartialEq)]
pub enum ImportError {
    TooLarge,
    NotJson(String),
    /// Neither the own format nor an object with `mcpServers`.
    Unrecognised,
    /// An export of a newer GemiPanel, or one that cannot be upgraded.
    Migration(MigrationError),
}

impl fmt::Display for ImportError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ImportError::TooLarge => {
                write!(f, "the file is larger than {} KiB", MAX_IMPORT_BYTES / 1024)
            }
            ImportError::NotJson(e) => write!(f, "the file is not valid JSON ({e})"),
            ImportError::Unrecognised => f.write_str(
                "the file is neither a GemiPanel export nor a settings file with “mcpServers” \
                 (gemini-cli settings.json or Claude Desktop claude_desktop_config.json)",
            ),
            ImportError::Migration(e) => write!(f, "{e}"),
        }
    }
}

impl std::error::Error for ImportError {}

/// Reads `text` and works out what importing it into `current` would do. `seed` is 16 random
/// bytes from the caller; ids of new servers derive from it and the name.
pub fn preview_import(
    text: &str,
    current: &Settings,
    seed: [u8; 16],
) -> Result<ImportPreview, ImportError> {
    if text.len() > MAX_IMPORT_BYTES {
        return Err(ImportError::TooLarge);
    }
    let value: Value = serde_json::from_str(&strip_comments(text))
        .map_err(|e| ImportError::NotJson(e.to_string()))?;
    let Value::Object(top) = value else {
        return Err(ImportError::Unrecognised);
    };
    let mut builder = Builder::new(current, seed);
    if top.get("format").and_then(Value::as_str) == Some(EXPORT_FORMAT) {
        builder.own_format(top)?;
    } else if let Some(Value::Object(servers)) = top.get("mcpServers") {
        builder.preview.source = detect_source(&top, servers);
        for (name, entry) in servers {
            builder.mcp_servers_entry(name, entry);
        }
    } else {
        return Err(ImportError::Unrecognised);
    }
    Ok(builder.preview)
}

fn detect_source(top: &Map<String, Value>, servers: &Map<String, Value>) -> ImportSource {
    const GEMINI_TOP: [&str; 9] = [
        "general",
        "ui",
        "model",
        "security",
        "tools",
        "mcp",
        "theme",
        "selectedAuthType",
        "context",
    ];
    const GEMINI_SERVER: [&str; 6] =
        ["httpUrl", "includeTools", "excludeTools", "trust", "timeout", "oauth"];
    const CLAUDE_TOP: [&str; 2] = ["globalShortcut", "preferences"];
    let any_server_has =
        |keys: &[&str]| servers.values().any(|s| keys.iter().any(|k| s.get(*k).is_some()));
    if GEMINI_TOP.iter().any(|k| top.contains_key(*k)) || any_server_has(&GEMINI_SERVER) {
        ImportSource::GeminiCli
    } else if CLAUDE_TOP.iter().any(|k| top.contains_key(*k)) || any_server_has(&["type"]) {
        ImportSource::ClaudeDesktop
    } else {
        ImportSource::McpServers
    }
}

struct Builder<'a> {
    current: &'a Settings,
    seed: [u8; 16],
    preview: ImportPreview,
}

impl<'a> Builder<'a> {
    fn new(current: &'a Settings, seed: [u8; 16]) -> Self {
        Builder {
            current,
            seed,
            preview: ImportPreview {
                source: ImportSource::GemiPanel,
                added: Vec::new(),
                updated: Vec::new(),
                skipped: Vec::new(),
                warnings: Vec::new(),
                api_key: None,
                model: None,
            },
        }
    }

    fn skip(&mut self, name: &str, reason: impl Into<String>) {
        self.preview.skipped.push(Skipped { name: name.to_string(), reason: reason.into() });
    }

    fn warn(&mut self, name: &str, warning: impl fmt::Display) {
        self.preview.warnings.push(format!("“{name}”: {warning}"));
    }

    /// An export of this extension, of any schema version.
    fn own_format(&mut self, mut top: Map<String, Value>) -> Result<(), ImportError> {
        top.remove("format");
        let (doc, _) = migrate(Value::Object(top)).map_err(ImportError::Migration)?;
        if let Some(key) = doc.pointer("/gemini/api_key").and_then(Value::as_str) {
            if !key.is_empty() {
                self.preview.api_key = Some(Secret::new(key));
            }
        }
        if let Some(model) = doc.pointer("/gemini/model").and_then(Value::as_str) {
            if model != self.current.gemini.model && validate_model(model).is_ok() {
                self.preview.model = Some(model.to_string());
            }
        }
        let servers = doc.get("servers").and_then(Value::as_array).cloned().unwrap_or_default();
        for (i, entry) in servers.into_iter().enumerate() {
            let name = entry
                .get("name")
                .and_then(Value::as_str)
                .map(str::to_string)
                .unwrap_or_else(|| format!("server {}", i + 1));
            match serde_json::from_value::<Server>(entry) {
                Ok(mut server) => {
                    self.drop_empty_headers(&mut server);
                    self.add(server);
                }
                Err(e) => self.skip(&name, crate::decode::without_strings(&e.to_string())),
            }
        }
        Ok(())
    }

    /// One entry of a gemini-cli or Claude Desktop `mcpServers` object.
    fn mcp_servers_entry(&mut self, name: &str, entry: &Value) {
        let Some(entry) = entry.as_object() else {
            return self.skip(name, "the entry is not a JSON object");
        };
        let kind = entry.get("type").and_then(Value::as_str);
        if entry.contains_key("command") || kind == Some("stdio") {
            return self.skip(name, stdio_reason(entry));
        }
        let http_url = entry.get("httpUrl").and_then(Value::as_str);
        let url = entry.get("url").and_then(Value::as_str);
        let (address, sse) = match (kind, http_url, url) {
            (Some("http" | "streamable-http" | "streamableHttp"), _, Some(u)) => (u, false),
            (Some("sse"), _, Some(u)) => (u, true),
            (Some(other), _, _)
                if !["http", "streamable-http", "streamableHttp", "sse"].contains(&other) =>
            {
                return self.skip(name, format!("the transport type “{other}” is not supported"))
            }
            (_, Some(h), other) => {
                if other.is_some() {
                    self.warn(name, "has both httpUrl and url; httpUrl is used");
                }
                (h, false)
            }
            // gemini-cli reads a bare `url` as an SSE endpoint.
            (None, None, Some(u)) => (u, true),
            _ => return self.skip(name, "it has no httpUrl or url"),
        };
        if sse {
            self.warn(
                name,
                "is configured for the SSE transport; GemiPanel connects with Streamable HTTP, \
                 which servers that only speak the older SSE transport do not answer",
            );
        }
        let mut server = self.blank(name);
        server.url = address.to_string();
        match read_headers(entry.get("headers")) {
            Ok(headers) => server.headers = headers,
            Err(reason) => return self.skip(name, reason),
        }
        for (header, value) in &server.headers {
            if value.expose().contains('$') {
                // Name the header only: its value is a secret.
                self.warn(
                    name,
                    format!(
                        "header {header} refers to an environment variable, which a browser \
                         cannot read; replace it with the value"
                    ),
                );
            }
        }
        if let Some(timeout) = entry.get("timeout") {
            match timeout.as_u64().filter(|t| validate_timeout(*t).is_ok()) {
                Some(t) => server.timeout_ms = t,
                None => self.warn(name, "the timeout is out of range; the default is used"),
            }
        }
        server.trust = entry.get("trust").and_then(Value::as_bool).unwrap_or(false);
        server.include_tools = entry.get("includeTools").map(string_list);
        server.exclude_tools = entry.get("excludeTools").map(string_list).unwrap_or_default();
        let ignored: Vec<&str> =
            entry.keys().map(String::as_str).filter(|k| !KNOWN_KEYS.contains(k)).collect();
        if !ignored.is_empty() {
            self.warn(name, format!("these settings are not imported: {}", ignored.join(", ")));
        }
        self.add(server);
    }

    fn blank(&self, name: &str) -> Server {
        Server::blank(ServerId::derive(&self.seed, name), name.trim().to_string())
    }

    /// An export without secrets has header names with empty values: drop them, say which.
    fn drop_empty_headers(&mut self, server: &mut Server) {
        let empty: Vec<String> =
            server.headers.iter().filter(|(_, v)| v.is_empty()).map(|(k, _)| k.clone()).collect();
        for header in &empty {
            server.headers.shift_remove(header);
        }
        if !empty.is_empty() {
            let name = server.name.clone();
            self.warn(
                &name,
                format!(
                    "the file has no value for header {}; add it after importing",
                    empty.join(", ")
                ),
            );
        }
    }

    /// Checks a server from the file and files it under added, updated or skipped.
    fn add(&mut self, mut server: Server) {
        let name = server.name.clone();
        let pending = || self.preview.added.iter().chain(&self.preview.updated);
        if pending().any(|s| same_name(&s.name, &name)) {
            return self.skip(&name, "the file has another server with this name");
        }
        match validate_url(&server.url, server.local_network) {
            Ok(url) => server.url = url,
            Err(e)
                if e.url_refusal.as_ref().map(|r| r.kind())
                    == Some(RefusalKind::NeedsLocalNetwork) =>
            {
                // Importing one's own config is a deliberate act, but a private address is
                // worth a second look: it is allowed and the user is told.
                match validate_url(&server.url, true) {
                    Ok(url) => server.url = url,
                    Err(e) => return self.skip(&name, e.message),
                }
                server.local_network = true;
                self.warn(
                    &name,
                    "points to a local network address; “local network server” is ticked for it",
                );
            }
            Err(e) => return self.skip(&name, e.message),
        }
        let existing = self.current.server_by_name(&name);
        if let Some(existing) = existing {
            server.id = existing.id.clone();
            if existing.url == server.url {
                server.allowed_tools.extend(existing.allowed_tools.iter().cloned());
            }
        } else if self.current.server(&server.id).is_some()
            || self.preview.added.iter().any(|s| s.id == server.id)
        {
            server.id = ServerId::derive(&self.seed, &format!("{name}\0{}", server.id));
        }
        if let Err(e) = validate_server(&server) {
            return self.skip(&name, e.message);
        }
        if existing.is_some() {
            self.preview.updated.push(server);
        } else {
            self.preview.added.push(server);
        }
    }
}

/// Keys of an `mcpServers` entry that import reads (or rejects on purpose).
const KNOWN_KEYS: [&str; 9] = [
    "httpUrl",
    "url",
    "type",
    "headers",
    "timeout",
    "trust",
    "includeTools",
    "excludeTools",
    "description",
];

fn stdio_reason(entry: &Map<String, Value>) -> String {
    let base = "stdio servers (command) cannot run in a browser";
    // Claude Desktop reaches remote servers through the mcp-remote bridge; point at the URL.
    let args = entry.get("args").and_then(Value::as_array);
    let remote = args.and_then(|args| {
        let wraps = args.iter().any(|a| a.as_str().is_some_and(|s| s.contains("mcp-remote")));
        let url = args
            .iter()
            .filter_map(Value::as_str)
            .filter_map(crate::web_url::parse)
            .find(|u| matches!(u.scheme.as_str(), "http" | "https"));
        wraps.then_some(url).flatten()
    });
    match remote.as_ref().and_then(|u| u.host_str()) {
        Some(host) => format!(
            "{base}; it bridges to a remote server at {host}: add that server's URL instead"
        ),
        None => base.to_string(),
    }
}

fn read_headers(value: Option<&Value>) -> Result<Headers, String> {
    let Some(value) = value else {
        return Ok(Headers::new());
    };
    let Some(map) = value.as_object() else {
        return Err("its headers are not a JSON object".into());
    };
    map.iter()
        .map(|(k, v)| match v.as_str() {
            Some(s) => Ok((k.clone(), Secret::new(s))),
            None => Err(format!("the value of header {k} is not a string")),
        })
        .collect()
}

fn string_list(value: &Value) -> Vec<String> {
    value
        .as_array()
        .map(|items| items.iter().filter_map(Value::as_str).map(str::to_string).collect())
        .unwrap_or_default()
}
