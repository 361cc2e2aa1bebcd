//! Changes to the settings as values, applied by one pure function.
//!
//! Pages send a [`SettingsEdit`]; the worker queues them and, for each, reads the stored
//! document, calls [`apply`] and writes the result. Because an edit names what it changes
//! (one server by id, one tool) rather than carrying a whole document, edits from the popup,
//! the side panel and the worker never undo each other.

use std::fmt;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::document::{
    same_name, CachedTools, Headers, Server, ServerId, Settings, DEFAULT_TIMEOUT_MS,
};
use super::secret::Secret;
use super::validate::{duplicate_name, validate, validate_url, Field, Invalid};
use crate::url_policy::UrlRefusal;

/// One change to the settings. Decoded by hand ([`SettingsEdit::from_json`], in `read.rs`),
/// not through serde field by field: smaller in the worker. The derive is there for the tests
/// that check the two agree.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(test, derive(Deserialize))]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum SettingsEdit {
    /// `None` forgets the key.
    SetApiKey {
        api_key: Option<Secret>,
    },
    SetModel {
        model: String,
    },
    /// The caller makes the id (`ServerId::generate` with random bytes).
    AddServer {
        id: ServerId,
        server: ServerDraft,
    },
    /// Replaces the server's configuration; a changed URL forgets its cached tools and
    /// "always allow" choices, which were made for another server.
    UpdateServer {
        id: ServerId,
        server: ServerDraft,
    },
    RemoveServer {
        id: ServerId,
    },
    SetTrust {
        id: ServerId,
        trust: bool,
    },
    SetEnabledByDefault {
        id: ServerId,
        enabled: bool,
    },
    SetLocalNetwork {
        id: ServerId,
        local_network: bool,
    },
    SetToolFilters {
        id: ServerId,
        include_tools: Option<Vec<String>>,
        exclude_tools: Vec<String>,
    },
    /// "Always allow" for one tool of one server.
    AllowTool {
        id: ServerId,
        tool: String,
    },
    DisallowTool {
        id: ServerId,
        tool: String,
    },
    SetCachedTools {
        id: ServerId,
        tools: Vec<Value>,
        fetched_at_ms: u64,
    },
    /// What an import preview adds or updates (see `ImportPreview::into_edit`). Servers are
    /// matched by name when applied, so a server added meanwhile is updated, not duplicated.
    Import {
        servers: Vec<Server>,
        api_key: Option<Secret>,
        model: Option<String>,
    },
}

impl SettingsEdit {
    pub(super) const TYPES: &'static [&'static str] = &[
        "set_api_key",
        "set_model",
        "add_server",
        "update_server",
        "remove_server",
        "set_trust",
        "set_enabled_by_default",
        "set_local_network",
        "set_tool_filters",
        "allow_tool",
        "disallow_tool",
        "set_cached_tools",
        "import",
    ];

    /// Reads an edit from its JSON form (the one `Serialize` writes).
    pub fn from_json(value: Value) -> Result<SettingsEdit, String> {
        super::read::edit(value)
    }
}

/// The server form's fields.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ServerDraft {
    pub name: String,
    pub url: String,
    /// `None` keeps the stored headers on update (so the popup need not hold their values) and
    /// means none on add.
    #[serde(default)]
    pub headers: Option<Headers>,
    /// `None` means the default timeout.
    #[serde(default)]
    pub timeout_ms: Option<u64>,
    #[serde(default)]
    pub trust: bool,
    #[serde(default)]
    pub include_tools: Option<Vec<String>>,
    #[serde(default)]
    pub exclude_tools: Vec<String>,
    #[serde(default = "yes")]
    pub enabled_by_default: bool,
    #[serde(default)]
    pub local_network: bool,
}

fn yes() -> bool {
    true
}

impl ServerDraft {
    /// A draft with defaults for everything but name and URL.
    pub fn new(name: impl Into<String>, url: impl Into<String>) -> Self {
        ServerDraft {
            name: name.into(),
            url: url.into(),
            headers: None,
            timeout_ms: None,
            trust: false,
            include_tools: None,
            exclude_tools: Vec::new(),
            enabled_by_default: true,
            local_network: false,
        }
    }
}

/// Why an edit was refused. The document is unchanged.
#[derive(Debug, Clone, PartialEq)]
pub enum EditError {
    /// No server has this id (it may have been removed meanwhile).
    UnknownServer(ServerId),
    Invalid(Invalid),
}

impl EditError {
    /// The form field to show the message next to.
    pub fn field(&self) -> Field {
        match self {
            EditError::UnknownServer(_) => Field::ServerId,
            EditError::Invalid(i) => i.field,
        }
    }

    pub fn is_unknown_server(&self) -> bool {
        matches!(self, EditError::UnknownServer(_))
    }

    pub fn url_refusal(&self) -> Option<&UrlRefusal> {
        match self {
            EditError::Invalid(i) => i.url_refusal.as_ref(),
            EditError::UnknownServer(_) => None,
        }
    }
}

impl fmt::Display for EditError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            EditError::UnknownServer(_) => f.write_str("this server no longer exists"),
            EditError::Invalid(i) => write!(f, "{i}"),
        }
    }
}

impl std::error::Error for EditError {}

impl From<Invalid> for EditError {
    fn from(i: Invalid) -> Self {
        EditError::Invalid(i)
    }
}

/// Applies one edit. Returns the new document, which is valid; or an error and no change.
pub fn apply(doc: &Settings, edit: &SettingsEdit) -> Result<Settings, EditError> {
    let mut next = doc.clone();
    change(&mut next, edit)?;
    validate(&next)?;
    Ok(next)
}

fn change(doc: &mut Settings, edit: &SettingsEdit) -> Result<(), EditError> {
    match edit {
        SettingsEdit::SetApiKey { api_key } => {
            doc.gemini.api_key = api_key.clone().filter(|k| !k.is_empty());
        }
        SettingsEdit::SetModel { model } => doc.gemini.model = model.trim().to_string(),
        SettingsEdit::AddServer { id, server } => {
            if doc.server_by_name(&server.name).is_some() {
                return Err(duplicate_name(&server.name).into());
            }
            let mut new = empty_server(id.clone());
            fill(&mut new, server)?;
            doc.servers.push(new);
        }
        SettingsEdit::UpdateServer { id, server } => {
            if doc.servers.iter().any(|s| &s.id != id && same_name(&s.name, &server.name)) {
                return Err(duplicate_name(&server.name).into());
            }
            fill(find(doc, id)?, server)?;
        }
        SettingsEdit::RemoveServer { id } => {
            find(doc, id)?;
            doc.servers.retain(|s| &s.id != id);
        }
        SettingsEdit::SetTrust { id, trust } => find(doc, id)?.trust = *trust,
        SettingsEdit::SetEnabledByDefault { id, enabled } => {
            find(doc, id)?.enabled_by_default = *enabled
        }
        SettingsEdit::SetLocalNetwork { id, local_network } => {
            find(doc, id)?.local_network = *local_network
        }
        SettingsEdit::SetToolFilters { id, include_tools, exclude_tools } => {
            let server = find(doc, id)?;
            server.include_tools = include_tools.clone();
            server.exclude_tools = exclude_tools.clone();
        }
        SettingsEdit::AllowTool { id, tool } => {
            find(doc, id)?.allowed_tools.insert(tool.clone());
        }
        SettingsEdit::DisallowTool { id, tool } => {
            find(doc, id)?.allowed_tools.remove(tool);
        }
        SettingsEdit::SetCachedTools { id, tools, fetched_at_ms } => {
            find(doc, id)?.cached_tools =
                Some(CachedTools { fetched_at_ms: *fetched_at_ms, tools: tools.clone() });
        }
        SettingsEdit::Import { servers, api_key, model } => {
            for imported in servers {
                upsert_by_name(doc, imported.clone());
            }
            if let Some(key) = api_key {
                doc.gemini.api_key = Some(key.clone());
            }
            if let Some(model) = model {
                doc.gemini.model = model.clone();
            }
        }
    }
    Ok(())
}

fn find<'a>(doc: &'a mut Settings, id: &ServerId) -> Result<&'a mut Server, EditError> {
    doc.servers.iter_mut().find(|s| &s.id == id).ok_or_else(|| EditError::UnknownServer(id.clone()))
}

fn empty_server(id: ServerId) -> Server {
    Server::blank(id, String::new())
}

/// Copies a draft into a server; the URL is normalised here so equal URLs compare equal.
fn fill(server: &mut Server, draft: &ServerDraft) -> Result<(), Invalid> {
    let on = |e: Invalid| e.on_server(draft.name.trim());
    let url = validate_url(&draft.url, draft.local_network).map_err(on)?;
    if !server.url.is_empty() && server.url != url {
        forget_server_state(server);
    }
    server.name = draft.name.trim().to_string();
    server.url = url;
    if let Some(headers) = &draft.headers {
        server.headers = headers.clone();
    }
    server.timeout_ms = draft.timeout_ms.unwrap_or(DEFAULT_TIMEOUT_MS);
    server.trust = draft.trust;
    server.include_tools = draft.include_tools.clone();
    server.exclude_tools = draft.exclude_tools.clone();
    server.enabled_by_default = draft.enabled_by_default;
    server.local_network = draft.local_network;
    Ok(())
}

/// Tool lists and "always allow" choices belong to the server at the old URL.
fn forget_server_state(server: &mut Server) {
    server.cached_tools = None;
    server.allowed_tools.clear();
}

fn upsert_by_name(doc: &mut Settings, imported: Server) {
    match doc.servers.iter_mut().find(|s| same_name(&s.name, &imported.name)) {
        Some(existing) => {
            let keep = Server { id: existing.id.clone(), ..imported };
            let url_changed = existing.url != keep.url;
            let (cached, allowed) =
                (existing.cached_tools.take(), std::mem::take(&mut existing.allowed_tools));
            *existing = keep;
            if !url_changed {
                existing.cached_tools = cached;
                existing.allowed_tools.extend(allowed);
            }
        }
        None => doc.servers.push(imported),
    }
}
