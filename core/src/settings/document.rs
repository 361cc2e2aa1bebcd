//! The settings document of the current schema version, as stored in `chrome.storage.local`.

use indexmap::{IndexMap, IndexSet};

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use super::local::LocalCommand;
use super::secret::Secret;

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
}

impl Default for Settings {
    fn default() -> Self {
        Settings {
            version: CURRENT_VERSION,
            gemini: GeminiSettings::default(),
            servers: Vec::new(),
        }
    }
}

impl Settings {
    /// The document as the pages see it: header values blanked (only the popup's form replaces
    /// them, and only the worker sends them). The Gemini key stays: the side panel calls Gemini.
    pub fn for_pages(&self) -> Settings {
        let mut view = self.clone();
        for server in &mut view.servers {
            server.headers.values_mut().for_each(|value| *value = Secret::default());
            if let Some(secret) = &mut server.oauth.client_secret {
                *secret = Secret::default();
            }
            if let Some(local) = &mut server.local {
                *local = local.for_pages();
            }
        }
        view
    }

    pub fn server(&self, id: &ServerId) -> Option<&Server> {
        self.servers.iter().find(|s| &s.id == id)
    }

    pub fn server_by_name(&self, name: &str) -> Option<&Server> {
        self.servers.iter().find(|s| same_name(&s.name, name))
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
}

impl OAuthClient {
    pub fn is_empty(&self) -> bool {
        self == &OAuthClient::default()
    }
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
    /// Whether the person confirmed the command line this local server runs now.
    pub fn command_confirmed(&self) -> bool {
        match &self.local {
            Some(local) => self.confirmed_command.as_deref() == Some(&*local.fingerprint()),
            None => true,
        }
    }

    /// A server with every setting at its default, to be filled in by an edit or an import.
    pub fn blank(id: ServerId, name: String) -> Server {
        Server {
            id,
            name,
            url: String::new(),
            local: None,
            confirmed_command: None,
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
