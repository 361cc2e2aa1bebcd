//! Importing servers from a file: the extension's own export, gemini-cli's `settings.json`,
//! Claude Desktop's `claude_desktop_config.json`, Claude Code's and Cursor's `mcpServers` files
//! (`.mcp.json`, `mcp.json`), VS Code's `mcp.json` (`servers`, with `inputs` it prompts for) and
//! Windsurf's and the Antigravity CLI's `mcp_config.json` (`serverUrl`). Import never changes anything by itself: it
//! builds an [`ImportPreview`] to show, which becomes a [`SettingsEdit`] when the person agrees.
//!
//! Each format is read by a type of its own ([`SettingsFile`], [`McpServerEntry`]); an entry
//! that does not read costs only itself.

use std::fmt;

use indexmap::IndexMap;
use serde::Deserialize;
use serde_json::{Map, Value};

use super::document::{same_name, Headers, Server, ServerId, Settings};
use super::edit::SettingsEdit;
use super::export::EXPORT_FORMAT;
use super::jsonc::strip_comments;
use super::local::LocalCommand;
use super::migrate::{migrate, MigrationError};
use super::validate::{validate_model, validate_server, validate_timeout, validate_url};
use crate::decode::{from_value, Lenient};
use crate::secret::Secret;
use crate::text::Text;
use crate::url_policy::RefusalKind;

/// Files larger than this are refused before parsing.
pub const MAX_IMPORT_BYTES: usize = 1 << 20;

/// What kind of file was recognised.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ImportSource {
    GemiPanel,
    GeminiCli,
    ClaudeDesktop,
    /// Claude Code's `.mcp.json`: Claude Desktop's entries with their `type`, none of its
    /// app settings around them.
    ClaudeCode,
    /// VS Code's `mcp.json`: `servers` rather than `mcpServers`.
    VsCode,
    /// Windsurf's or the Antigravity CLI's `mcp_config.json`: remote servers as `serverUrl`.
    Windsurf,
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
            ImportSource::ClaudeCode => "Claude Code",
            ImportSource::VsCode => "VS Code",
            ImportSource::Windsurf => "Windsurf / Antigravity",
            ImportSource::McpServers => "mcpServers",
        }
    }
}

/// A server of the file that will not be imported, and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Skipped {
    pub name: String,
    pub reason: Text,
}

/// What applying an import would do. Shown to the person first; see [`ImportPreview::into_edit`].
#[derive(Debug, Clone, PartialEq)]
pub struct ImportPreview {
    pub source: ImportSource,
    /// Servers whose names are new.
    pub added: Vec<Server>,
    /// Servers that replace the configuration of a server with the same name (keeping its id).
    pub updated: Vec<Server>,
    pub skipped: Vec<Skipped>,
    /// Things the person should know, e.g. a header that refers to an environment variable.
    pub warnings: Vec<Text>,
    /// From the own format only, when the file has them.
    pub api_key: Option<Secret>,
    pub model: Option<String>,
    /// The instructions for every chat, when the file's differ from the current ones.
    pub instructions: Option<String>,
}

impl ImportPreview {
    pub fn is_empty(&self) -> bool {
        self.added.is_empty()
            && self.updated.is_empty()
            && self.api_key.is_none()
            && self.model.is_none()
            && self.instructions.is_none()
    }

    /// The edit that applies this preview.
    pub fn into_edit(self) -> SettingsEdit {
        SettingsEdit::Import {
            servers: self.added.into_iter().chain(self.updated).collect(),
            api_key: self.api_key,
            model: self.model,
            instructions: self.instructions,
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

impl ImportError {
    pub fn text(&self) -> Text {
        match self {
            ImportError::TooLarge => Text::new("errImportTooLarge").arg(MAX_IMPORT_BYTES / 1024),
            ImportError::NotJson(e) => Text::new("errImportNotJson").arg(e),
            ImportError::Unrecognised => Text::new("errImportUnrecognised"),
            ImportError::Migration(e) => e.text(),
        }
    }
}

impl fmt::Display for ImportError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.text().fmt(f)
    }
}

impl std::error::Error for ImportError {}

/// A settings file of gemini-cli or Claude Desktop, or a GemiPanel export: what import reads of
/// it. Everything else in the file is the other program's business.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct SettingsFile {
    #[serde(default)]
    format: Option<Value>,
    #[serde(default)]
    mcp_servers: Option<IndexMap<String, Lenient<McpServerEntry>>>,
    /// VS Code's name for it.
    #[serde(default)]
    servers: Option<IndexMap<String, Lenient<McpServerEntry>>>,
    /// VS Code's values asked of the person when a server starts, named as `${input:id}`.
    #[serde(default)]
    inputs: Vec<Lenient<VsCodeInput>>,
    #[serde(flatten)]
    rest: Map<String, Value>,
}

/// One of VS Code's `inputs` (<https://code.visualstudio.com/docs/reference/mcp-configuration>).
#[derive(Deserialize)]
struct VsCodeInput {
    id: String,
    #[serde(default)]
    description: Option<String>,
}

/// One entry of an `mcpServers` object, as gemini-cli and Claude Desktop write it.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct McpServerEntry {
    #[serde(default, rename = "type")]
    transport: Option<String>,
    #[serde(default)]
    command: Option<String>,
    #[serde(default)]
    args: Vec<String>,
    /// A local server's environment (values may be `$VAR`, which the bridge expands).
    #[serde(default)]
    env: IndexMap<String, Secret>,
    #[serde(default)]
    cwd: Option<String>,
    #[serde(default)]
    http_url: Option<String>,
    #[serde(default)]
    url: Option<String>,
    /// Windsurf's and Antigravity's Streamable HTTP address.
    #[serde(default)]
    server_url: Option<String>,
    #[serde(default)]
    headers: Option<Headers>,
    /// Milliseconds; gemini-cli's.
    #[serde(default)]
    timeout: Option<i64>,
    #[serde(default)]
    trust: Option<bool>,
    #[serde(default)]
    include_tools: Option<Vec<String>>,
    #[serde(default)]
    exclude_tools: Option<Vec<String>>,
    /// Known and of no use here (no warning for it).
    #[serde(default, rename = "description")]
    _description: Option<serde::de::IgnoredAny>,
    /// Settings GemiPanel has no use for (`oauth`, …): named in a warning.
    #[serde(flatten)]
    other: Map<String, Value>,
}

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
        .map_err(|e| ImportError::NotJson(crate::decode::without_strings(&e.to_string())))?;
    let mut builder = Builder::new(current, seed);
    if value.get("format").and_then(Value::as_str) == Some(EXPORT_FORMAT) {
        builder.own_format(value)?;
        return Ok(builder.preview);
    }
    let file: SettingsFile =
        from_value("the file", value).map_err(|_| ImportError::Unrecognised)?;
    let (servers, vs_code) = match (file.mcp_servers, file.servers) {
        (Some(servers), _) => (servers, false),
        (None, Some(servers)) => (servers, true),
        (None, None) => return Err(ImportError::Unrecognised),
    };
    if file.format.is_some() {
        return Err(ImportError::Unrecognised);
    }
    builder.preview.source = match vs_code {
        true => ImportSource::VsCode,
        false => detect_source(&file.rest, &servers),
    };
    builder.inputs = file
        .inputs
        .into_iter()
        .filter_map(Lenient::valid)
        .map(|input| (input.id, input.description))
        .collect();
    for (name, entry) in servers {
        match entry {
            Lenient::Valid(entry) => builder.mcp_servers_entry(&name, entry),
            Lenient::Invalid { error, .. } => {
                builder.skip(&name, Text::new("errImportEntryUnreadable").arg(error.located()))
            }
        }
    }
    Ok(builder.preview)
}

fn detect_source(
    top: &Map<String, Value>,
    servers: &IndexMap<String, Lenient<McpServerEntry>>,
) -> ImportSource {
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
    const CLAUDE_TOP: [&str; 2] = ["globalShortcut", "preferences"];
    let entries = || {
        servers.values().filter_map(|e| match e {
            Lenient::Valid(entry) => Some(entry),
            Lenient::Invalid { .. } => None,
        })
    };
    let gemini_entry = |e: &McpServerEntry| {
        e.http_url.is_some()
            || e.include_tools.is_some()
            || e.exclude_tools.is_some()
            || e.trust.is_some()
            || e.timeout.is_some()
            || e.other.contains_key("oauth")
    };
    if entries().any(|e| e.server_url.is_some()) {
        ImportSource::Windsurf
    } else if GEMINI_TOP.iter().any(|k| top.contains_key(*k)) || entries().any(gemini_entry) {
        ImportSource::GeminiCli
    } else if CLAUDE_TOP.iter().any(|k| top.contains_key(*k)) {
        ImportSource::ClaudeDesktop
    } else if entries().any(|e| e.transport.is_some()) {
        ImportSource::ClaudeCode
    } else {
        ImportSource::McpServers
    }
}

struct Builder<'a> {
    current: &'a Settings,
    seed: [u8; 16],
    preview: ImportPreview,
    /// VS Code's inputs: id and what it asks for.
    inputs: IndexMap<String, Option<String>>,
}

impl<'a> Builder<'a> {
    fn new(current: &'a Settings, seed: [u8; 16]) -> Self {
        Builder {
            current,
            seed,
            inputs: IndexMap::new(),
            preview: ImportPreview {
                source: ImportSource::GemiPanel,
                added: Vec::new(),
                updated: Vec::new(),
                skipped: Vec::new(),
                warnings: Vec::new(),
                api_key: None,
                model: None,
                instructions: None,
            },
        }
    }

    fn skip(&mut self, name: &str, reason: Text) {
        self.preview.skipped.push(Skipped { name: name.to_string(), reason });
    }

    fn warn(&mut self, name: &str, warning: Text) {
        self.preview.warnings.push(Text::new("importAbout").arg(name).with(warning));
    }

    /// An export of this extension, of any schema version.
    fn own_format(&mut self, mut value: Value) -> Result<(), ImportError> {
        if let Some(fields) = value.as_object_mut() {
            fields.shift_remove("format");
        }
        let (doc, _) = migrate(value).map_err(ImportError::Migration)?;
        let doc: Export = from_value("the file", doc).map_err(|_| ImportError::Unrecognised)?;
        if let Some(key) = doc.gemini.api_key.filter(|k| !k.is_empty()) {
            self.preview.api_key = Some(key);
        }
        if let Some(model) = doc.gemini.model {
            if Some(&model) != self.current.gemini.model.as_ref() && validate_model(&model).is_ok()
            {
                self.preview.model = Some(model);
            }
        }
        let instructions = doc.gemini.instructions.map(|i| i.trim().to_owned());
        if let Some(instructions) = instructions.filter(|i| !i.is_empty()) {
            let current = self.current.gemini.chosen_instructions();
            if current != Some(instructions.as_str())
                && super::validate::validate_instructions(&instructions).is_ok()
            {
                self.preview.instructions = Some(instructions);
            }
        }
        for (i, entry) in doc.servers.into_iter().enumerate() {
            match entry {
                Lenient::Valid(mut server) => {
                    self.drop_empty_headers(&mut server);
                    self.add(server);
                }
                Lenient::Invalid { raw, error } => {
                    let name = raw.get("name").and_then(Value::as_str).map(str::to_owned);
                    let name = name.unwrap_or_else(|| format!("#{}", i + 1));
                    self.skip(&name, Text::new("errImportEntryUnreadable").arg(error.located()));
                }
            }
        }
        Ok(())
    }

    /// One entry of a gemini-cli or Claude Desktop `mcpServers` object.
    fn mcp_servers_entry(&mut self, name: &str, mut entry: McpServerEntry) {
        if entry.command.is_some() || entry.transport.as_deref() == Some("stdio") {
            return self.local_entry(name, entry);
        }
        if entry.http_url.is_none() {
            entry.http_url = entry.server_url.take();
        }
        const HTTP: [&str; 3] = ["http", "streamable-http", "streamableHttp"];
        let (address, sse) = match (entry.transport.as_deref(), &entry.http_url, &entry.url) {
            (Some(kind), _, Some(u)) if HTTP.contains(&kind) => (u.clone(), false),
            (Some("sse"), _, Some(u)) => (u.clone(), true),
            (Some(other), _, _) if !HTTP.contains(&other) && other != "sse" => {
                return self.skip(name, Text::new("errImportTransport").arg(other));
            }
            (_, Some(http), other) => {
                if other.is_some() {
                    self.warn(name, Text::new("importBothUrls"));
                }
                (http.clone(), false)
            }
            // gemini-cli reads a bare `url` as an SSE endpoint.
            (None, None, Some(u)) => (u.clone(), true),
            _ => return self.skip(name, Text::new("errImportNoUrl")),
        };
        if sse {
            self.warn(name, Text::new("importSse"));
        }
        let mut server = self.blank(name);
        server.url = address;
        server.headers = entry.headers.take().unwrap_or_default();
        self.leave_out_inputs(name, &mut server.headers);
        let variables: Vec<String> = server
            .headers
            .iter()
            .filter(|(_, value)| value.expose().contains('$'))
            .map(|(header, _)| header.clone())
            .collect();
        for header in variables {
            // Name the header only: its value is a secret.
            self.warn(name, Text::new("importHeaderVariable").arg(header));
        }
        self.add_with_shared_settings(name, server, entry);
    }

    /// A `command` entry: a local server, run through the bridge once the person confirms it.
    fn local_entry(&mut self, name: &str, mut entry: McpServerEntry) {
        let Some(command) = entry.command.take().filter(|c| !c.trim().is_empty()) else {
            return self.skip(name, Text::new("errImportNoCommand"));
        };
        if let Some(host) = bridged_remote(&entry.args) {
            self.warn(name, Text::new("importRemoteBridge").arg(host));
        }
        let mut server = self.blank(name);
        server.local = Some(LocalCommand {
            command: command.trim().to_owned(),
            args: std::mem::take(&mut entry.args),
            env: std::mem::take(&mut entry.env),
            cwd: entry.cwd.take().filter(|c| !c.trim().is_empty()),
        });
        if let Some(local) = &mut server.local {
            self.leave_out_inputs(name, &mut local.env);
        }
        let relative = |cwd: &str| {
            !(cwd.starts_with(['/', '~', '\\']) || cwd.get(1..3).is_some_and(|d| d == ":\\"))
        };
        if server.local.as_ref().and_then(|l| l.cwd.as_deref()).is_some_and(relative) {
            self.warn(name, Text::new("importRelativeCwd"));
        }
        self.add_with_shared_settings(name, server, entry);
    }

    /// What remote and local entries share (timeout, trust, tool filters, and a warning for
    /// settings left out), then files the server.
    fn add_with_shared_settings(&mut self, name: &str, mut server: Server, entry: McpServerEntry) {
        if let Some(timeout) = entry.timeout {
            match u64::try_from(timeout).ok().filter(|t| validate_timeout(*t).is_ok()) {
                Some(t) => server.timeout_ms = t,
                None => self.warn(name, Text::new("importTimeoutRange")),
            }
        }
        server.trust = entry.trust.unwrap_or(false);
        server.include_tools = entry.include_tools;
        server.exclude_tools = entry.exclude_tools.unwrap_or_default();
        let ignored: Vec<&str> = entry.other.keys().map(String::as_str).collect();
        if !ignored.is_empty() {
            self.warn(name, Text::new("importIgnored").arg(ignored.join(", ")));
        }
        self.add(server);
    }

    /// Values VS Code asks the person for (`${input:id}`) are not in the file: left out, each
    /// named with what VS Code asks, so the person enters it in the server's form.
    fn leave_out_inputs(&mut self, name: &str, values: &mut IndexMap<String, Secret>) {
        let asked: Vec<(String, String)> = values
            .iter()
            .filter_map(|(key, value)| {
                let id = value.expose().split("${input:").nth(1)?.split('}').next()?;
                let what = self.inputs.get(id).cloned().flatten().unwrap_or_else(|| id.to_owned());
                Some((key.clone(), what))
            })
            .collect();
        for (key, what) in asked {
            values.shift_remove(&key);
            self.warn(name, Text::new("importInput").arg(&key).arg(what));
        }
    }

    fn blank(&self, name: &str) -> Server {
        Server::blank(ServerId::derive(&self.seed, name), name.trim().to_string())
    }

    /// An export without secrets has header names with empty values: drop them, say which.
    fn drop_empty_headers(&mut self, server: &mut Server) {
        if let Some(local) = &mut server.local {
            let empty: Vec<String> =
                local.env.iter().filter(|(_, v)| v.is_empty()).map(|(k, _)| k.clone()).collect();
            local.env.retain(|_, v| !v.is_empty());
            if !empty.is_empty() {
                let name = server.name.clone();
                self.warn(&name, Text::new("importEnvEmpty").arg(empty.join(", ")));
            }
        }
        let empty: Vec<String> =
            server.headers.iter().filter(|(_, v)| v.is_empty()).map(|(k, _)| k.clone()).collect();
        for header in &empty {
            server.headers.shift_remove(header);
        }
        if !empty.is_empty() {
            let name = server.name.clone();
            self.warn(&name, Text::new("importHeaderEmpty").arg(empty.join(", ")));
        }
        // The sign-in method and client stay; a secret exported without its value is entered
        // again in the server's form.
        if server.oauth.secrets_mut().any(|secret| secret.is_empty()) {
            let name = server.name.clone();
            self.warn(&name, Text::new("importSignInSecretEmpty"));
        }
    }

    /// Checks a server from the file and files it under added, updated or skipped.
    fn add(&mut self, mut server: Server) {
        let name = server.name.clone();
        let pending = || self.preview.added.iter().chain(&self.preview.updated);
        if pending().any(|s| same_name(&s.name, &name)) {
            return self.skip(&name, Text::new("errImportDuplicate"));
        }
        // A file cannot say that this computer's person confirmed a command.
        server.forget_confirmation();
        match validate_url(&server.url, server.local_network) {
            _ if server.local.is_some() => {}
            Ok(url) => server.url = url,
            Err(e)
                if e.url_refusal.as_ref().map(|r| r.kind())
                    == Some(RefusalKind::NeedsLocalNetwork) =>
            {
                // Importing one's own config is a deliberate act, but a private address is
                // worth a second look: it is allowed and the person is told.
                match validate_url(&server.url, true) {
                    Ok(url) => server.url = url,
                    Err(e) => return self.skip(&name, e.message),
                }
                server.local_network = true;
                self.warn(&name, Text::new("importLocalNetwork"));
            }
            Err(e) => return self.skip(&name, e.message),
        }
        let existing = self.current.server_by_name(&name);
        if let Some(existing) = existing {
            server.id = existing.id.clone();
            if existing.url == server.url && existing.local == server.local {
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

/// The parts of an export (after migration to the current version) import reads; each server
/// on its own, so one that does not read costs only itself.
#[derive(Deserialize)]
struct Export {
    gemini: ExportGemini,
    #[serde(default)]
    servers: Vec<Lenient<Server>>,
}

#[derive(Deserialize)]
struct ExportGemini {
    #[serde(default)]
    api_key: Option<Secret>,
    #[serde(default)]
    model: Option<String>,
    #[serde(default)]
    instructions: Option<String>,
}

/// The host of a remote server that a command only bridges to (Claude Desktop reaches remote
/// servers through `mcp-remote`): GemiPanel could reach it directly.
fn bridged_remote(args: &[String]) -> Option<String> {
    if !args.iter().any(|a| a.contains("mcp-remote")) {
        return None;
    }
    let remote = args
        .iter()
        .filter_map(|a| crate::web_url::parse(a))
        .find(|u| matches!(u.scheme.as_str(), "http" | "https"))?;
    remote.host_str().map(str::to_owned)
}
