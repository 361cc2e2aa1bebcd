//! The settings document of the current schema version, as stored in `chrome.storage.local`.

use indexmap::{IndexMap, IndexSet};

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use super::local::LocalCommand;
use crate::native::run_env::changes_what_runs;
use crate::secret::Secret;

/// The schema version this build writes. Older documents are migrated on load (`migrate.rs`).
pub const CURRENT_VERSION: u64 = 6;
/// Timeout for one request to an MCP server when the user sets none.
pub const DEFAULT_TIMEOUT_MS: u64 = 30_000;

/// Everything the user configured. The worker is its only writer; see [`super::apply`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Settings {
    /// Always [`CURRENT_VERSION`] once loaded; kept in the struct so the stored JSON says it.
    pub version: u64,
    pub gemini: GeminiSettings,
    pub servers: Vec<Server>,
    /// The tool sources that are not MCP servers, by source id (`browser`, `page:<origin>`;
    /// see `core::settings::source`): trust, "always allow", tools turned off. A server keeps
    /// these on its own entry.
    #[serde(default, skip_serializing_if = "IndexMap::is_empty")]
    pub sources: IndexMap<String, SourceSettings>,
    /// Sources (any kind, by id) whose trusted tools may act after web content entered the
    /// conversation without asking: the person turned that check off for them.
    #[serde(default, skip_serializing_if = "IndexSet::is_empty")]
    pub skip_page_content_check: IndexSet<String>,
}

impl Default for Settings {
    fn default() -> Self {
        Settings {
            version: CURRENT_VERSION,
            gemini: GeminiSettings::default(),
            servers: Vec::new(),
            sources: IndexMap::new(),
            skip_page_content_check: IndexSet::new(),
        }
    }
}

/// Trust and tool choices of a source that is not an MCP server (the browser, a page).
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SourceSettings {
    /// Calls run without asking first.
    #[serde(default)]
    pub trust: bool,
    /// Tools the person said "always allow" for.
    #[serde(default, skip_serializing_if = "IndexSet::is_empty")]
    pub allowed_tools: ToolNames,
    /// Tools turned off: never offered.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub exclude_tools: Vec<String>,
}

impl Settings {
    /// The document as the pages see it: header values blanked (only the popup's form replaces
    /// them, and only the worker sends them). The Gemini key stays: the side panel calls Gemini.
    pub fn for_pages(&self) -> Settings {
        let mut view = self.clone();
        // Locked (`core::vault`): the pages get no key rather than its sealed text.
        if view.gemini.api_key.as_ref().is_some_and(|k| crate::vault::is_sealed(k.expose())) {
            view.gemini.api_key = None;
            view.gemini.api_key_locked = true;
        }
        view.servers.iter_mut().for_each(Server::blank_secret_values);
        view
    }

    pub fn server(&self, id: &ServerId) -> Option<&Server> {
        self.servers.iter().find(|s| &s.id == id)
    }

    pub fn server_by_name(&self, name: &str) -> Option<&Server> {
        self.servers.iter().find(|s| same_name(&s.name, name))
    }

    /// Trust and choices of any source by its id, a server's taken from its entry.
    pub fn source(&self, id: &str) -> SourceSettings {
        if let Some(server) = self.servers.iter().find(|s| s.id.as_str() == id) {
            return SourceSettings {
                trust: server.trust,
                allowed_tools: server.allowed_tools.clone(),
                exclude_tools: server.exclude_tools.clone(),
            };
        }
        self.sources.get(id).cloned().unwrap_or_default()
    }

    /// Whether trusted tools of source `id` ask after web content entered the conversation.
    pub fn confirms_after_page_content(&self, id: &str) -> bool {
        !self.skip_page_content_check.contains(id)
    }

    /// The servers of this document that `next` no longer has.
    pub fn removed_in(&self, next: &Settings) -> Vec<ServerId> {
        let kept = |id: &ServerId| next.servers.iter().any(|s| s.id == *id);
        self.servers.iter().map(|s| s.id.clone()).filter(|id| !kept(id)).collect()
    }

    /// Of the server ids something is kept for (credentials, a key), those of no server in
    /// this document: left behind by a removal that did not finish (the worker stopped, an
    /// older version). Ids used while testing a draft (`test_…`) are no one's either.
    pub fn orphans<'a>(&self, kept_for: impl IntoIterator<Item = &'a str>) -> Vec<String> {
        let mut orphans: Vec<String> = kept_for
            .into_iter()
            .filter(|id| !self.servers.iter().any(|s| s.id.as_str() == *id))
            .map(str::to_owned)
            .collect();
        orphans.sort_unstable();
        orphans.dedup();
        orphans
    }
}

/// Server names are compared without case: tool names derived from them are lower-cased, so
/// "GitHub" and "github" would collide there.
pub fn same_name(a: &str, b: &str) -> bool {
    a.trim().eq_ignore_ascii_case(b.trim())
}

#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GeminiSettings {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub api_key: Option<Secret>,
    /// The model the person chose; `None` (absent) is the automatic default, the newest stable
    /// Flash of the model list (`gemini::automatic_model`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    /// Where the Gemini API is; `None` is Google's. Set for tests (a fake API on loopback) and
    /// proxies; https, or http on loopback only.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub base_url: Option<String>,
    /// The person's instructions for every chat, sent as `systemInstruction` before the chat's
    /// own. Added in version 6 without a migration: absent is none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub instructions: Option<String>,
    /// A key is kept but sealed under the passphrase, which is not entered: set only in the
    /// pages' copy ([`Settings::for_pages`]), which then has no key, so that they do not ask
    /// for one the person already gave.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub api_key_locked: bool,
}

impl GeminiSettings {
    /// The model the person chose, if they chose one.
    pub fn chosen_model(&self) -> Option<&str> {
        self.model.as_deref().map(str::trim).filter(|m| !m.is_empty())
    }

    /// The instructions for every chat, if there are any.
    pub fn chosen_instructions(&self) -> Option<&str> {
        self.instructions.as_deref().map(str::trim).filter(|i| !i.is_empty())
    }

    /// Where requests go: `base_url` without a trailing slash, or Google's endpoint.
    pub fn api_base(&self) -> &str {
        self.base_url
            .as_deref()
            .map(str::trim)
            .filter(|u| !u.is_empty())
            .unwrap_or(crate::gemini::DEFAULT_BASE_URL)
            .trim_end_matches('/')
    }

    /// What a model list listed with these settings is the list of.
    pub fn model_source(&self) -> ModelSource {
        ModelSource { base: self.api_base().to_owned(), key: self.api_key.clone() }
    }

    /// Whether a model list listed with `other` is also these settings' list: the same key
    /// and address.
    pub fn same_model_source(&self, other: &GeminiSettings) -> bool {
        self.model_source() == other.model_source()
    }
}

/// What a model list is the list of ([`ListedModels`]): the API's address and the key it is
/// listed with. A page lists the models again when either changes.
#[derive(Debug, Clone, PartialEq)]
pub struct ModelSource {
    base: String,
    key: Option<Secret>,
}

/// A model list and what it is the list of. A page shows it only while it shows settings of
/// the same key and address: one listed for older settings is another key's list.
#[derive(Debug, Clone, PartialEq)]
pub struct ListedModels {
    pub source: ModelSource,
    pub models: Vec<crate::gemini::ModelInfo>,
}

impl ListedModels {
    pub fn is_for(&self, gemini: &GeminiSettings) -> bool {
        gemini.model_source() == self.source
    }
}

/// One MCP server: remote (`url`) or local (`local`, run through the bridge; `url` empty).
/// `Debug` shows the URL without its query (which may carry a key).
#[derive(Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Server {
    pub id: ServerId,
    pub name: String,
    /// Normalised by `url_policy::check` when it was set; empty for a local server.
    pub url: String,
    /// Set for a local server: the program the bridge runs.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub local: Option<LocalCommand>,
    /// The [`LocalCommand::fingerprint`] the person confirmed; any other command asks again.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub confirmed_command: Option<String>,
    /// The fingerprint of the line they were shown and allowed (`native::run_line`), as the
    /// bridge runs it; the bridge starts nothing else. Absent in documents confirmed before it
    /// existed: see [`Server::allowed_run`].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub confirmed_run: Option<String>,
    /// Header name → value. Every value counts as a secret (most are credentials).
    #[serde(default)]
    pub headers: Headers,
    pub timeout_ms: u64,
    /// Calls run without asking first.
    #[serde(default)]
    pub trust: bool,
    /// Only these tools are offered to the model; `None` offers all.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub include_tools: Option<Vec<String>>,
    /// Never offered; wins over `include_tools`.
    #[serde(default)]
    pub exclude_tools: Vec<String>,
    /// Switched on in new chats.
    #[serde(default = "yes")]
    pub enabled_by_default: bool,
    /// The user's "local network server" tick: allows private network addresses.
    #[serde(default)]
    pub local_network: bool,
    /// Tools the user said "always allow" for.
    #[serde(default)]
    pub allowed_tools: ToolNames,
    /// How GemiPanel identifies itself when it signs in to this server (Advanced).
    #[serde(default, skip_serializing_if = "OAuthClient::is_empty")]
    pub oauth: OAuthClient,
}

/// The client identity the person configured for signing in to a server. Empty: GemiPanel uses
/// a client registered on its own (RFC 7591), or a Client ID Metadata Document.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct OAuthClient {
    /// A client id from a registration of the person's own.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub client_id: Option<String>,
    /// Its secret, when the registration gave one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub client_secret: Option<Secret>,
    /// An https URL serving a Client ID Metadata Document for GemiPanel's redirect URI.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub metadata_url: Option<String>,
    /// The authorization server (its issuer identifier) the client id was registered with. Its
    /// secret or key is sent to no other, whatever the MCP server names later.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub issuer: Option<String>,
    /// A private key (PEM, PKCS #8, P-256) the client proves itself with (`private_key_jwt`,
    /// RFC 7523 §2.2) instead of a secret.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub private_key: Option<Secret>,
    #[serde(default, skip_serializing_if = "SignInMethod::is_default")]
    pub method: SignInMethod,
    /// The person's enterprise identity provider, for [`SignInMethod::Enterprise`].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub identity_provider: Option<IdentityProvider>,
}

impl OAuthClient {
    pub fn is_empty(&self) -> bool {
        self == &OAuthClient::default()
    }

    /// Every secret of the client: the client secret, the private key, the identity
    /// provider's client secret.
    pub fn secrets_mut(&mut self) -> impl Iterator<Item = &mut Secret> {
        let provider = self.identity_provider.as_mut().and_then(|p| p.client_secret.as_mut());
        self.client_secret.as_mut().into_iter().chain(self.private_key.as_mut()).chain(provider)
    }

    /// An empty secret is the pages' blank copy of a stored one: each such slot takes the
    /// value `stored` has in it.
    pub fn keep_blank_secrets_from(&mut self, stored: &OAuthClient) {
        fn keep(slot: &mut Option<Secret>, stored: Option<&Secret>) {
            if slot.as_ref().is_some_and(Secret::is_empty) {
                *slot = stored.cloned();
            }
        }
        keep(&mut self.client_secret, stored.client_secret.as_ref());
        keep(&mut self.private_key, stored.private_key.as_ref());
        if let Some(provider) = &mut self.identity_provider {
            let kept = stored.identity_provider.as_ref().and_then(|p| p.client_secret.as_ref());
            keep(&mut provider.client_secret, kept);
        }
    }
}

/// How GemiPanel gets a server's tokens.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SignInMethod {
    /// The person signs in in the browser's sign-in window (authorization code with PKCE).
    #[default]
    Browser,
    /// No person: a client of the person's own, with its secret or private key, gets tokens
    /// for itself (OAuth client credentials, MCP extension `oauth-client-credentials`).
    ClientCredentials,
    /// The person signs in to their company's identity provider once; its identity assertion
    /// is exchanged for the server's tokens (MCP extension `enterprise-managed-authorization`).
    Enterprise,
}

impl SignInMethod {
    pub fn is_default(&self) -> bool {
        *self == SignInMethod::Browser
    }
}

/// An enterprise identity provider (OpenID Connect) and GemiPanel's client there.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct IdentityProvider {
    /// Its issuer identifier (the URL its discovery document is under).
    pub issuer: String,
    pub client_id: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub client_secret: Option<Secret>,
}

/// Header name → value, in the order given. Every value counts as a secret.
pub type Headers = IndexMap<String, Secret>;

/// Tool names in the order they were added, each once.
pub type ToolNames = IndexSet<String>;

fn yes() -> bool {
    true
}

impl std::fmt::Debug for Server {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Server")
            .field("id", &self.id)
            .field("name", &self.name)
            .field("url", &crate::mcp::redact_url(&self.url))
            .field("local", &self.local)
            .field("confirmed_command", &self.confirmed_command)
            .field("confirmed_run", &self.confirmed_run)
            .field("headers", &self.headers)
            .field("timeout_ms", &self.timeout_ms)
            .field("trust", &self.trust)
            .field("include_tools", &self.include_tools)
            .field("exclude_tools", &self.exclude_tools)
            .field("enabled_by_default", &self.enabled_by_default)
            .field("local_network", &self.local_network)
            .field("allowed_tools", &self.allowed_tools)
            .field("oauth", &self.oauth)
            .finish()
    }
}

impl Server {
    /// Takes `previous`'s confirmation of its command when this server runs the very same
    /// command line (command, arguments, environment) at the same address; any change asks the
    /// person again. Used wherever a server arrives over one of the same name or id (an
    /// import, another computer's copy through sync).
    pub fn keep_confirmation_of(&mut self, previous: &Server) {
        let same = self.local == previous.local && self.url == previous.url;
        self.confirmed_command = previous.confirmed_command.clone().filter(|_| same);
        self.confirmed_run = previous.confirmed_run.clone().filter(|_| same);
    }

    /// Whether the person confirmed the command line this local server runs now.
    pub fn command_confirmed(&self) -> bool {
        match &self.local {
            Some(local) => self.confirmed_command.as_deref() == Some(&*local.fingerprint()),
            None => true,
        }
    }

    /// The fingerprint of the run the person allowed, which the bridge checks before it starts
    /// the server; `None` until they allowed the command line as configured now.
    ///
    /// A confirmation from before the line showed the values of variables that change what
    /// runs (`confirmed_run` absent) stands for the line as configured, unless the person was
    /// not shown such a value then: that one asks again, once. A `$VAR` it had in single quotes
    /// asks again too, since the line the bridge runs differs from the one configured.
    pub fn allowed_run(&self) -> Option<String> {
        let local = self.local.as_ref().filter(|_| self.command_confirmed())?;
        match &self.confirmed_run {
            Some(run) => Some(run.clone()),
            None if local.env.keys().any(|name| changes_what_runs(name)) => None,
            None => Some(local.run_line().fingerprint),
        }
    }

    /// Forgets that the person allowed the command line (an import or an export of it).
    /// Blanks every secret value (header values, the sign-in client's secrets, environment
    /// values that do not change what runs); their names stay, to be filled in.
    pub fn blank_secret_values(&mut self) {
        self.headers.values_mut().for_each(|value| *value = Secret::default());
        self.oauth.secrets_mut().for_each(|secret| *secret = Secret::default());
        if let Some(local) = &mut self.local {
            *local = local.for_pages();
        }
    }

    pub fn forget_confirmation(&mut self) {
        self.confirmed_command = None;
        self.confirmed_run = None;
    }

    /// A server with every setting at its default, to be filled in by an edit or an import.
    pub fn blank(id: ServerId, name: String) -> Server {
        Server {
            id,
            name,
            url: String::new(),
            local: None,
            confirmed_command: None,
            confirmed_run: None,
            headers: Headers::new(),
            timeout_ms: DEFAULT_TIMEOUT_MS,
            trust: false,
            include_tools: None,
            exclude_tools: Vec::new(),
            enabled_by_default: true,
            local_network: false,
            allowed_tools: ToolNames::new(),
            oauth: OAuthClient::default(),
        }
    }
}

/// A server's stable identity: tokens, chats and tool routes refer to it, so renaming a server
/// or changing its URL keeps it.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(transparent)]
pub struct ServerId(String);

impl ServerId {
    const PREFIX: &'static str = "srv_";

    /// A fresh id from 16 random bytes the caller draws (core has no RNG).
    pub fn generate(random: [u8; 16]) -> Self {
        ServerId(format!("{}{}", Self::PREFIX, hex(&random[..8])))
    }

    /// An id that is a pure function of `seed` and `name`: migrations must give the same ids
    /// every time they run on the same document, and an import derives one per imported name.
    pub fn derive(seed: &[u8], name: &str) -> Self {
        let mut hash = Sha256::new();
        hash.update(b"gemipanel server id\0");
        hash.update(seed);
        hash.update(b"\0");
        // ASCII case only, as `same_name` compares: ids must not change between versions.
        hash.update(name.trim().to_ascii_lowercase().as_bytes());
        ServerId(format!("{}{}", Self::PREFIX, hex(&hash.finalize()[..8])))
    }

    /// Reads an id that came from storage or a page; `None` when it is not one of ours.
    pub fn parse(text: &str) -> Option<Self> {
        let rest = text.strip_prefix(Self::PREFIX)?;
        let ok = (1..=64).contains(&rest.len())
            && rest.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-');
        ok.then(|| ServerId(text.to_string()))
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl std::fmt::Display for ServerId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}
