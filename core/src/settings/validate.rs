//! The rules a settings document obeys, shared by load, edits and import.

use std::fmt;

use super::document::{same_name, Headers, OAuthClient, Server, ServerId, Settings, SignInMethod};
use super::private_key::pkcs8_from_pem;
use crate::mcp::{is_header_name, is_header_value};
use crate::secret::Secret;
use crate::text::Text;
use crate::url_policy::{self, Policy, UrlRefusal};
use crate::web_url;

/// Which field a problem is about, so the popup can show the message next to it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Field {
    ApiKey,
    Model,
    /// The instructions for every chat.
    Instructions,
    ServerId,
    Name,
    Url,
    Headers,
    Timeout,
    ToolFilters,
    AllowedTools,
    /// The sign-in client (Advanced).
    SignIn,
    /// A local server's command line.
    Command,
    /// The document as a whole (shape, version, number of servers).
    Document,
}

/// One broken rule. `Display` is a sentence for a person; it never contains a secret.
#[derive(Debug, Clone, PartialEq)]
pub struct Invalid {
    pub field: Field,
    /// The server's name when the problem is about one server.
    pub server: Option<String>,
    pub message: Text,
    /// Set when the URL policy refused the URL.
    pub url_refusal: Option<UrlRefusal>,
}

impl Invalid {
    pub fn new(field: Field, message: Text) -> Self {
        Invalid { field, server: None, message, url_refusal: None }
    }

    /// The whole sentence: on which server, and what is wrong.
    pub fn text(&self) -> Text {
        match &self.server {
            Some(name) => Text::new("errOnServer").arg(name).with(self.message.clone()),
            None => self.message.clone(),
        }
    }

    pub fn on_server(mut self, name: &str) -> Self {
        self.server = Some(name.to_string());
        self
    }
}

impl fmt::Display for Invalid {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.text().fmt(f)
    }
}

pub const MAX_SERVERS: usize = 100;
/// Sites whose tools' trust is kept, at most (and so many opt-outs of the page content check).
pub const MAX_SOURCES: usize = 200;
pub const MAX_NAME_CHARS: usize = 64;
pub const MIN_TIMEOUT_MS: u64 = 100;
pub const MAX_TIMEOUT_MS: u64 = 3_600_000;
const MAX_TOOL_NAME_CHARS: usize = 128;

/// The most characters of instructions: they go with every request of every chat.
pub const MAX_INSTRUCTIONS_CHARS: usize = 20_000;

/// Instructions for every chat, or for one chat: not longer than [`MAX_INSTRUCTIONS_CHARS`].
pub fn validate_instructions(instructions: &str) -> Result<(), Invalid> {
    if instructions.chars().count() > MAX_INSTRUCTIONS_CHARS {
        return Err(Invalid::new(
            Field::Instructions,
            Text::new("errSettingsInstructionsTooLong").arg(MAX_INSTRUCTIONS_CHARS),
        ));
    }
    Ok(())
}

/// Checks the whole document: each server, and that ids and names are unique.
pub fn validate(doc: &Settings) -> Result<(), Invalid> {
    if let Some(model) = &doc.gemini.model {
        validate_model(model)?;
    }
    if let Some(key) = &doc.gemini.api_key {
        validate_api_key(key)?;
    }
    if let Some(instructions) = &doc.gemini.instructions {
        validate_instructions(instructions)?;
    }
    if let Some(base_url) = &doc.gemini.base_url {
        // The same rule as for servers: https, or http on this computer.
        url_policy::check(base_url, Policy::Configured { local_network: false }).map_err(|r| {
            Invalid::new(Field::Document, Text::new("errSettingsGeminiAddress").with(r.text()))
        })?;
    }
    if doc.servers.len() > MAX_SERVERS {
        return Err(Invalid::new(
            Field::Document,
            Text::new("errSettingsTooManyServers").arg(MAX_SERVERS),
        ));
    }
    if doc.sources.len() > MAX_SOURCES
        || doc.skip_page_content_check.len() > MAX_SOURCES + MAX_SERVERS
    {
        return Err(Invalid::new(
            Field::Document,
            Text::new("errSettingsTooManySources").arg(MAX_SOURCES),
        ));
    }
    let kinds = doc.sources.keys().map(|id| crate::settings::source::SourceKind::of(id));
    if kinds.into_iter().any(|kind| kind == crate::settings::source::SourceKind::Mcp) {
        return Err(Invalid::new(Field::Document, Text::new("errSettingsNoSource")));
    }
    // At most 100 servers: a scan of the ones before is quick enough.
    for (i, server) in doc.servers.iter().enumerate() {
        validate_server(server)?;
        let before = &doc.servers[..i];
        if before.iter().any(|s| s.id == server.id) {
            return Err(Invalid::new(Field::ServerId, Text::new("errSettingsSameId"))
                .on_server(&server.name));
        }
        if before.iter().any(|s| same_name(&s.name, &server.name)) {
            return Err(duplicate_name(&server.name));
        }
    }
    Ok(())
}

pub fn duplicate_name(name: &str) -> Invalid {
    Invalid::new(Field::Name, Text::new("errSettingsNameTaken").arg(name.trim()))
}

/// Checks one server on its own (not its uniqueness among others).
pub fn validate_server(server: &Server) -> Result<(), Invalid> {
    let name = server.name.as_str();
    let on = |e: Invalid| e.on_server(name);
    if ServerId::parse(server.id.as_str()).is_none() {
        return Err(on(Invalid::new(Field::ServerId, Text::new("errSettingsBadId"))));
    }
    validate_name(name)?;
    match &server.local {
        Some(local) => {
            super::local::validate_local(local).map_err(on)?;
            if !server.url.is_empty() || !server.headers.is_empty() {
                return Err(on(Invalid::new(Field::Url, Text::new("errSettingsLocalAndUrl"))));
            }
        }
        None => {
            validate_url(&server.url, server.local_network).map_err(on)?;
        }
    }
    validate_headers(&server.headers).map_err(on)?;
    validate_timeout(server.timeout_ms).map_err(on)?;
    let include = server.include_tools.iter().flatten();
    for tool in include.chain(&server.exclude_tools) {
        validate_tool_name(tool, Field::ToolFilters).map_err(on)?;
    }
    for tool in &server.allowed_tools {
        validate_tool_name(tool, Field::AllowedTools).map_err(on)?;
    }
    validate_oauth_client(&server.oauth).map_err(on)?;
    Ok(())
}

/// A client id and secret are printable text on one line; a metadata document URL is https
/// with a path (the id of a Client ID Metadata Document is its URL); an issuer is an http(s)
/// URL without query or fragment; a private key is a P-256 key in PKCS #8; client credentials
/// need a client with a secret or key; enterprise sign-in needs the identity provider.
///
/// Documents stored before the newer fields load as before: nothing here asks for a field an
/// older document could lack (the issuer a secret is bound to is asked for at sign-in).
pub fn validate_oauth_client(client: &OAuthClient) -> Result<(), Invalid> {
    let invalid = |key: &'static str| Err(Invalid::new(Field::SignIn, Text::new(key)));
    let printable = |text: &str| {
        !text.is_empty() && text.len() <= 512 && text.bytes().all(|b| b.is_ascii_graphic())
    };
    // An empty secret is the pages' blank copy of a stored one (see `ServerPatch`); a sealed
    // one (`core::vault`) was checked when it was entered.
    let plain = |s: &Secret| !s.is_empty() && !crate::vault::is_sealed(s.expose());
    let bad_secret =
        |s: &Option<Secret>| s.as_ref().is_some_and(|s| plain(s) && !printable(s.expose()));
    if client.client_id.as_deref().is_some_and(|id| !printable(id)) {
        return invalid("errSettingsClientId");
    }
    if bad_secret(&client.client_secret) {
        return invalid("errSettingsClientSecret");
    }
    if (client.client_secret.is_some() || client.private_key.is_some())
        && client.client_id.is_none()
    {
        return invalid("errSettingsSecretWithoutId");
    }
    if let Some(key) = client.private_key.as_ref().filter(|k| plain(k)) {
        if let Err(problem) = pkcs8_from_pem(key.expose()) {
            return invalid(problem.message_key());
        }
    }
    if let Some(url) = &client.metadata_url {
        let ok = web_url::parse(url.trim())
            .is_some_and(|u| u.scheme == "https" && u.pathname.len() > 1 && u.fragment.is_none());
        if !ok {
            return invalid("errSettingsMetadataUrl");
        }
    }
    if client.issuer.as_deref().is_some_and(|issuer| !is_issuer(issuer)) {
        return invalid("errSettingsIssuer");
    }
    match client.method {
        SignInMethod::Browser => {}
        SignInMethod::ClientCredentials => {
            if client.client_id.is_none()
                || (client.client_secret.is_none() && client.private_key.is_none())
            {
                return invalid("errSettingsClientCredentials");
            }
        }
        SignInMethod::Enterprise => {
            let Some(provider) = &client.identity_provider else {
                return invalid("errSettingsNoIdentityProvider");
            };
            if !is_issuer(&provider.issuer) {
                return invalid("errSettingsIdentityProviderIssuer");
            }
            if !printable(&provider.client_id) {
                return invalid("errSettingsClientId");
            }
            if bad_secret(&provider.client_secret) {
                return invalid("errSettingsClientSecret");
            }
            if client.client_id.is_none() {
                return invalid("errSettingsEnterpriseClientId");
            }
        }
    }
    Ok(())
}

/// An issuer identifier: http(s), a host, no query or fragment (RFC 8414 §2).
fn is_issuer(issuer: &str) -> bool {
    web_url::parse(issuer.trim()).is_some_and(|u| {
        matches!(u.scheme.as_str(), "https" | "http")
            && !u.hostname.is_empty()
            && u.query.is_none()
            && u.fragment.is_none()
    })
}

pub fn validate_name(name: &str) -> Result<(), Invalid> {
    let trimmed = name.trim();
    if trimmed.is_empty() {
        return Err(Invalid::new(Field::Name, Text::new("errSettingsNoName")));
    }
    if trimmed != name {
        return Err(Invalid::new(Field::Name, Text::new("errSettingsNameSpaces")));
    }
    if name.chars().count() > MAX_NAME_CHARS {
        return Err(Invalid::new(
            Field::Name,
            Text::new("errSettingsNameLong").arg(MAX_NAME_CHARS),
        ));
    }
    if name.chars().any(char::is_control) {
        return Err(Invalid::new(Field::Name, Text::new("errSettingsNameControl")));
    }
    Ok(())
}

/// Checks a server URL with the user's tick; returns the normalised form to store.
pub fn validate_url(url: &str, local_network: bool) -> Result<String, Invalid> {
    url_policy::check(url, Policy::Configured { local_network }).map(String::from).map_err(
        |refusal| Invalid {
            field: Field::Url,
            server: None,
            message: refusal.text(),
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
            Text::new("errSettingsTimeout").arg(MIN_TIMEOUT_MS).arg(MAX_TIMEOUT_MS),
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
        Err(Invalid::new(Field::Model, Text::new("errSettingsModel")))
    }
}

pub fn validate_api_key(key: &Secret) -> Result<(), Invalid> {
    let k = key.expose();
    // Sealed at rest (`core::vault`): checked when it was entered.
    if crate::vault::is_sealed(k) {
        return Ok(());
    }
    if k.is_empty() || k.len() > 512 || k.bytes().any(|b| !b.is_ascii_graphic()) {
        // Deliberately says nothing about the key's content.
        return Err(Invalid::new(Field::ApiKey, Text::new("errSettingsApiKey")));
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
            return Err(Invalid::new(
                Field::Headers,
                Text::new("errSettingsHeaderTwice").arg(name),
            ));
        }
    }
    Ok(())
}

fn validate_header(name: &str, value: &Secret) -> Result<(), Invalid> {
    if !is_header_name(name) {
        return Err(Invalid::new(
            Field::Headers,
            Text::new("errSettingsHeaderName").arg(name.escape_debug()),
        ));
    }
    if RESERVED_HEADERS.contains(&name.to_ascii_lowercase().as_str()) {
        return Err(Invalid::new(Field::Headers, Text::new("errSettingsHeaderReserved").arg(name)));
    }
    // Header values are secrets: name the header, never echo the value.
    if !is_header_value(value.expose()) {
        return Err(Invalid::new(Field::Headers, Text::new("errSettingsHeaderValue").arg(name)));
    }
    Ok(())
}

/// Parses the headers box of the server form: a JSON object of strings. The popup calls this as
/// the user types; the edit checks the result again.
pub fn parse_headers(text: &str) -> Result<Headers, Invalid> {
    if text.trim().is_empty() {
        return Ok(Headers::new());
    }
    // Read as the document reads them; the error names where, never a value.
    let headers: Headers = crate::decode::from_slice("headers", text.as_bytes())
        .map_err(|e| Invalid::new(Field::Headers, Text::new("errSettingsHeadersJson").arg(e)))?;
    validate_headers(&headers)?;
    Ok(headers)
}

pub fn validate_tool_name(tool: &str, field: Field) -> Result<(), Invalid> {
    if tool.is_empty()
        || tool.chars().count() > MAX_TOOL_NAME_CHARS
        || tool.chars().any(char::is_control)
    {
        return Err(Invalid::new(field, Text::new("errSettingsToolName").arg(tool.escape_debug())));
    }
    Ok(())
}
