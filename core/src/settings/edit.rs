//! Changes to the settings as values, applied by one pure function.
//!
//! Pages send a [`SettingsEdit`]; the worker queues them and, for each, reads the stored
//! document, calls [`apply`] and writes the result. Because an edit names what it changes
//! (one server by id, one tool) rather than carrying a whole document, edits from the popup,
//! the side panel and the worker never undo each other.

use std::fmt;

use serde::{Deserialize, Serialize};

use super::document::{
    same_name, Headers, OAuthClient, Server, ServerId, Settings, SourceSettings, DEFAULT_TIMEOUT_MS,
};
use super::local::LocalCommand;
use super::validate::{duplicate_name, validate, validate_url, Field, Invalid};
use crate::secret::Secret;
use crate::text::Text;
use crate::url_policy::UrlRefusal;
use crate::web_url;

/// One change to the settings.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum SettingsEdit {
    /// `None` forgets the key.
    SetApiKey {
        api_key: Option<Secret>,
    },
    /// `None` (or empty): the automatic default.
    SetModel {
        #[serde(default)]
        model: Option<String>,
    },
    /// Instructions for every chat; `None` (or blank) removes them.
    SetInstructions {
        #[serde(default)]
        instructions: Option<String>,
    },
    /// The caller makes the id (`ServerId::generate` with random bytes).
    AddServer {
        id: ServerId,
        server: ServerDraft,
    },
    /// Changes what the person changed in the server's form, nothing else; a changed URL
    /// forgets the "always allow" choices, which were made for another server.
    UpdateServer {
        id: ServerId,
        changes: ServerPatch,
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
    /// A change to a tool source by its id (see `core::settings::source`): the browser's tools,
    /// a page's, or, for the page content check, a server's too.
    SetSource {
        source: String,
        change: SourceChange,
    },
    /// The person saw `command_line` ([`LocalCommand::display`]) and lets it run. Refused when
    /// the server's command changed meanwhile: the person has not seen that one.
    ConfirmCommand {
        id: ServerId,
        command_line: String,
        /// The fingerprint of the line as the bridge showed it, when it did; without it, the
        /// line as configured (`$VAR`s unexpanded) is what was allowed.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        run: Option<String>,
    },
    /// What an import preview adds or updates (see `ImportPreview::into_edit`). Servers are
    /// matched by name when applied, so a server added meanwhile is updated, not duplicated.
    Import {
        servers: Vec<Server>,
        api_key: Option<Secret>,
        model: Option<String>,
        #[serde(default)]
        instructions: Option<String>,
    },
}

/// What [`SettingsEdit::SetSource`] changes. (Externally tagged: one small variant of
/// `SettingsEdit` instead of four costs the worker's wasm less.)
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SourceChange {
    /// Trust the browser or a page: its calls run without asking.
    Trust(bool),
    /// "Always allow" one tool of the browser or of a page.
    AllowTool(String),
    /// Turns one tool of the browser or of a page on or off.
    ToolEnabled(String, bool),
    /// Whether trusted tools of the source (any kind) ask after web content entered the
    /// conversation.
    PageContentCheck(bool),
}

/// The server form's fields.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ServerDraft {
    pub name: String,
    /// Empty for a local server.
    pub url: String,
    /// A local server's command line; environment values left blank keep the stored ones.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub local: Option<LocalCommand>,
    /// `None` means none.
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
    #[serde(default, skip_serializing_if = "OAuthClient::is_empty")]
    pub oauth: OAuthClient,
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
            local: None,
            headers: None,
            timeout_ms: None,
            trust: false,
            include_tools: None,
            exclude_tools: Vec::new(),
            enabled_by_default: true,
            local_network: false,
            oauth: OAuthClient::default(),
        }
    }

    /// A draft of a local server that runs `local`.
    pub fn local(name: impl Into<String>, local: LocalCommand) -> Self {
        ServerDraft { local: Some(local), ..ServerDraft::new(name, "") }
    }

    /// The form of a stored server, header values left out (`headers: None`).
    pub fn of(server: &Server) -> Self {
        ServerDraft {
            name: server.name.clone(),
            url: server.url.clone(),
            local: server.local.as_ref().map(LocalCommand::for_pages),
            headers: None,
            timeout_ms: Some(server.timeout_ms),
            trust: server.trust,
            include_tools: server.include_tools.clone(),
            exclude_tools: server.exclude_tools.clone(),
            enabled_by_default: server.enabled_by_default,
            local_network: server.local_network,
            oauth: server.oauth.clone(),
        }
    }
}

/// What the person changed in a server's form; absent fields keep their stored value. Made
/// with [`ServerPatch::between`] from the form as it was opened and as it is saved.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct ServerPatch {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub url: Option<String>,
    /// `Some(None)`: the server becomes remote. Blank environment values keep the stored ones.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        with = "::serde_with::rust::double_option"
    )]
    pub local: Option<Option<LocalCommand>>,
    /// Replaces every header.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub headers: Option<Headers>,
    /// `Some(None)`: back to the default timeout.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        with = "::serde_with::rust::double_option"
    )]
    pub timeout_ms: Option<Option<u64>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub trust: Option<bool>,
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        with = "::serde_with::rust::double_option"
    )]
    pub include_tools: Option<Option<Vec<String>>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub exclude_tools: Option<Vec<String>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub enabled_by_default: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub local_network: Option<bool>,
    /// The sign-in client. A `client_secret` left empty keeps the stored one (the pages never
    /// see it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub oauth: Option<OAuthClient>,
    /// The person confirmed that the stored header values may be sent to the server's new
    /// origin (its URL moved to another one).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub headers_to_new_origin: bool,
}

impl ServerPatch {
    /// The fields that differ between the form as opened and as saved.
    pub fn between(opened: &ServerDraft, saved: &ServerDraft) -> ServerPatch {
        fn changed<T: PartialEq + Clone>(a: &T, b: &T) -> Option<T> {
            (a != b).then(|| b.clone())
        }
        ServerPatch {
            name: changed(&opened.name, &saved.name),
            url: changed(&opened.url, &saved.url),
            local: changed(&opened.local, &saved.local),
            headers: saved.headers.clone(),
            timeout_ms: changed(&opened.timeout_ms, &saved.timeout_ms),
            trust: changed(&opened.trust, &saved.trust),
            include_tools: changed(&opened.include_tools, &saved.include_tools),
            exclude_tools: changed(&opened.exclude_tools, &saved.exclude_tools),
            enabled_by_default: changed(&opened.enabled_by_default, &saved.enabled_by_default),
            local_network: changed(&opened.local_network, &saved.local_network),
            oauth: changed(&opened.oauth, &saved.oauth),
            headers_to_new_origin: false,
        }
    }

    pub fn is_empty(&self) -> bool {
        self == &ServerPatch::default()
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

impl EditError {
    pub fn text(&self) -> Text {
        match self {
            EditError::UnknownServer(_) => Text::new("errSettingsNoServer"),
            EditError::Invalid(i) => i.text(),
        }
    }
}

impl fmt::Display for EditError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.text().fmt(f)
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
        SettingsEdit::SetModel { model } => {
            doc.gemini.model =
                model.as_deref().map(str::trim).filter(|m| !m.is_empty()).map(str::to_owned);
        }
        SettingsEdit::SetInstructions { instructions } => {
            doc.gemini.instructions =
                instructions.as_deref().map(str::trim).filter(|i| !i.is_empty()).map(str::to_owned);
        }
        SettingsEdit::AddServer { id, server } => {
            if doc.server_by_name(&server.name).is_some() {
                return Err(duplicate_name(&server.name).into());
            }
            let mut new = empty_server(id.clone());
            fill(&mut new, server)?;
            doc.servers.push(new);
        }
        SettingsEdit::UpdateServer { id, changes } => {
            if let Some(name) = &changes.name {
                if doc.servers.iter().any(|s| &s.id != id && same_name(&s.name, name)) {
                    return Err(duplicate_name(name).into());
                }
            }
            patch(find(doc, id)?, changes)?;
        }
        SettingsEdit::RemoveServer { id } => {
            find(doc, id)?;
            doc.servers.retain(|s| &s.id != id);
            doc.skip_page_content_check.shift_remove(id.as_str());
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
            find(doc, id)?.allowed_tools.shift_remove(tool);
        }
        SettingsEdit::SetSource { source, change } => match change {
            SourceChange::Trust(trust) => other_source(doc, source)?.trust = *trust,
            SourceChange::AllowTool(tool) => {
                other_source(doc, source)?.allowed_tools.insert(tool.clone());
            }
            SourceChange::ToolEnabled(tool, enabled) => {
                let excluded = &mut other_source(doc, source)?.exclude_tools;
                excluded.retain(|t| t != tool);
                if !enabled {
                    excluded.push(tool.clone());
                }
            }
            SourceChange::PageContentCheck(check) => {
                known_source(doc, source)?;
                if *check {
                    doc.skip_page_content_check.shift_remove(source);
                } else {
                    doc.skip_page_content_check.insert(source.clone());
                }
            }
        },
        SettingsEdit::ConfirmCommand { id, command_line, run } => {
            let server = find(doc, id)?;
            let local = server.local.as_ref().filter(|l| &l.display() == command_line);
            let Some(local) = local else {
                return Err(Invalid::new(Field::Command, Text::new("errSettingsCommandChanged"))
                    .on_server(&server.name)
                    .into());
            };
            let run = run.clone().unwrap_or_else(|| local.run_line().fingerprint);
            server.confirmed_command = Some(local.fingerprint());
            server.confirmed_run = Some(run);
        }
        SettingsEdit::Import { servers, api_key, model, instructions } => {
            for imported in servers {
                upsert_by_name(doc, imported.clone());
            }
            if let Some(key) = api_key {
                doc.gemini.api_key = Some(key.clone());
            }
            if let Some(model) = model {
                doc.gemini.model = Some(model.clone());
            }
            if let Some(instructions) = instructions {
                doc.gemini.instructions = Some(instructions.clone());
            }
        }
    }
    Ok(())
}

fn find<'a>(doc: &'a mut Settings, id: &ServerId) -> Result<&'a mut Server, EditError> {
    doc.servers.iter_mut().find(|s| &s.id == id).ok_or_else(|| EditError::UnknownServer(id.clone()))
}

/// The settings of the browser or of a page, made on first use.
fn other_source<'a>(
    doc: &'a mut Settings,
    source: &str,
) -> Result<&'a mut SourceSettings, EditError> {
    use crate::settings::source::SourceKind;
    if SourceKind::of(source) == SourceKind::Mcp {
        return Err(Invalid::new(Field::ServerId, Text::new("errSettingsNoSource")).into());
    }
    known_source(doc, source)?;
    Ok(doc.sources.entry(source.to_owned()).or_default())
}

/// A source id a setting may be kept for: a server's, the browser, or a page by its origin
/// (http or https, as the browser writes origins).
fn known_source(doc: &Settings, source: &str) -> Result<(), EditError> {
    use crate::settings::source::{page_origin, SourceKind, BROWSER};
    let known = match SourceKind::of(source) {
        SourceKind::Browser => source == BROWSER,
        SourceKind::Page => page_origin(source).and_then(web_url::parse).is_some_and(|u| {
            matches!(u.scheme.as_str(), "http" | "https")
                && u.origin() == page_origin(source).unwrap_or_default()
        }),
        SourceKind::Mcp => doc.servers.iter().any(|s| s.id.as_str() == source),
    };
    if known {
        Ok(())
    } else {
        Err(Invalid::new(Field::ServerId, Text::new("errSettingsNoSource")).into())
    }
}

fn empty_server(id: ServerId) -> Server {
    Server::blank(id, String::new())
}

/// Copies a new server's draft into it; the URL is normalised here so equal URLs compare equal.
fn fill(server: &mut Server, draft: &ServerDraft) -> Result<(), Invalid> {
    let on = |e: Invalid| e.on_server(draft.name.trim());
    server.local = draft.local.clone();
    server.url = match &draft.local {
        Some(_) => String::new(),
        None => validate_url(&draft.url, draft.local_network).map_err(on)?,
    };
    server.name = draft.name.trim().to_string();
    server.headers = draft.headers.clone().unwrap_or_default();
    server.timeout_ms = draft.timeout_ms.unwrap_or(DEFAULT_TIMEOUT_MS);
    server.trust = draft.trust;
    server.include_tools = draft.include_tools.clone();
    server.exclude_tools = draft.exclude_tools.clone();
    server.enabled_by_default = draft.enabled_by_default;
    server.local_network = draft.local_network;
    server.oauth = draft.oauth.clone();
    Ok(())
}

/// Applies what the person changed to a stored server.
fn patch(server: &mut Server, changes: &ServerPatch) -> Result<(), Invalid> {
    let name = changes.name.as_deref().unwrap_or(&server.name).trim().to_owned();
    let on = |e: Invalid| e.on_server(&name);
    let local_network = changes.local_network.unwrap_or(server.local_network);
    if let Some(local) = &changes.local {
        let mut local = local.clone();
        if let (Some(new), Some(stored)) = (&mut local, &server.local) {
            new.keep_values_from(stored);
        }
        if local != server.local {
            forget_server_state(server);
        }
        server.local = local;
    }
    let url = match &server.local {
        Some(_) => String::new(),
        None => validate_url(changes.url.as_deref().unwrap_or(&server.url), local_network)
            .map_err(on)?,
    };
    if url != server.url {
        let moved = !same_origin(&server.url, &url);
        if moved
            && changes.headers.is_none()
            && !server.headers.is_empty()
            && !changes.headers_to_new_origin
        {
            return Err(on(Invalid::new(Field::Headers, Text::new("errSettingsHeadersMoved"))));
        }
        forget_server_state(server);
    }
    server.url = url;
    server.name = name;
    server.local_network = local_network;
    if let Some(headers) = &changes.headers {
        server.headers = headers.clone();
    }
    if let Some(timeout_ms) = changes.timeout_ms {
        server.timeout_ms = timeout_ms.unwrap_or(DEFAULT_TIMEOUT_MS);
    }
    if let Some(trust) = changes.trust {
        server.trust = trust;
    }
    if let Some(include) = &changes.include_tools {
        server.include_tools = include.clone();
    }
    if let Some(exclude) = &changes.exclude_tools {
        server.exclude_tools = exclude.clone();
    }
    if let Some(enabled) = changes.enabled_by_default {
        server.enabled_by_default = enabled;
    }
    if let Some(oauth) = &changes.oauth {
        let stored = std::mem::replace(&mut server.oauth, oauth.clone());
        server.oauth.keep_blank_secrets_from(&stored);
    }
    Ok(())
}

/// Whether two (valid, normalised) URLs share scheme, host and port.
fn same_origin(a: &str, b: &str) -> bool {
    match (web_url::parse(a), web_url::parse(b)) {
        (Some(a), Some(b)) => a.origin() == b.origin(),
        _ => false,
    }
}

/// "Always allow" choices belong to the server at the old URL (or the old command).
fn forget_server_state(server: &mut Server) {
    server.allowed_tools.clear();
}

fn upsert_by_name(doc: &mut Settings, imported: Server) {
    match doc.servers.iter_mut().find(|s| same_name(&s.name, &imported.name)) {
        Some(existing) => {
            let mut keep = Server { id: existing.id.clone(), ..imported };
            keep.keep_confirmation_of(existing);
            let url_changed = existing.url != keep.url || existing.local != keep.local;
            let allowed = std::mem::take(&mut existing.allowed_tools);
            *existing = keep;
            if !url_changed {
                existing.allowed_tools.extend(allowed);
            }
        }
        None => doc.servers.push(imported),
    }
}
