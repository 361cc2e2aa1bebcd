//! The settings document of the current schema version, as stored in `chrome.storage.local`.

use indexmap::IndexMap;

use serde::{Deserialize, Serialize};
use serde_json::Value;
use sha2::{Digest, Sha256};

use super::secret::Secret;

/// The schema version this build writes. Older documents are migrated on load (`migrate.rs`).
pub const CURRENT_VERSION: u64 = 2;
/// Model used until the user picks another.
pub const DEFAULT_MODEL: &str = "gemini-2.5-flash";
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

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GeminiSettings {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub api_key: Option<Secret>,
    pub model: String,
    /// Where the Gemini API is; `None` is Google's. Set for tests (a fake API on loopback) and
    /// proxies; https, or http on loopback only.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub base_url: Option<String>,
}

impl GeminiSettings {
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

impl Default for GeminiSettings {
    fn default() -> Self {
        GeminiSettings { api_key: None, model: DEFAULT_MODEL.to_string(), base_url: None }
    }
}

/// One remote MCP server.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Server {
    pub id: ServerId,
    pub name: String,
    /// Normalised by `url_policy::check` when it was set.
    pub url: String,
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
    /// The last tool list the server gave, so the side panel can show tools before connecting.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cached_tools: Option<CachedTools>,
    /// Tools the user said "always allow" for.
    #[serde(default)]
    pub allowed_tools: ToolNames,
}

/// Header name → value, in the order given, each name once. A `Vec` rather than an
/// `IndexMap`: a server has a few, and the map's hashing, insert and clone were 4 KB of the
/// worker. Reads, writes and compares as the map did: a JSON object, a repeated name keeps its
/// first place and takes the last value, order does not count in `==`.
#[derive(Clone, Default)]
pub struct Headers(Vec<(String, Secret)>);

impl Headers {
    pub fn new() -> Self {
        Headers(Vec::new())
    }

    /// Sets a header; a name already there keeps its place.
    pub fn insert(&mut self, name: String, value: Secret) {
        match self.0.iter_mut().find(|(n, _)| *n == name) {
            Some((_, old)) => *old = value,
            None => self.0.push((name, value)),
        }
    }

    pub fn get(&self, name: &str) -> Option<&Secret> {
        self.0.iter().find(|(n, _)| n == name).map(|(_, v)| v)
    }

    /// Removes a header, keeping the order of the others.
    pub fn remove(&mut self, name: &str) {
        self.0.retain(|(n, _)| n != name);
    }

    pub fn len(&self) -> usize {
        self.0.len()
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    pub fn iter(&self) -> std::slice::Iter<'_, (String, Secret)> {
        self.0.iter()
    }

    pub fn values_mut(&mut self) -> impl Iterator<Item = &mut Secret> {
        self.0.iter_mut().map(|(_, v)| v)
    }
}

impl PartialEq for Headers {
    fn eq(&self, other: &Self) -> bool {
        self.len() == other.len() && self.iter().all(|(n, v)| other.get(n) == Some(v))
    }
}

impl Eq for Headers {}

/// `headers["Name"]`, as on the map: panics when the header is absent.
impl std::ops::Index<&str> for Headers {
    type Output = Secret;

    fn index(&self, name: &str) -> &Secret {
        self.get(name).expect("no header of this name")
    }
}

impl std::fmt::Debug for Headers {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_map().entries(self.iter().map(|(n, v)| (n, v))).finish()
    }
}

impl FromIterator<(String, Secret)> for Headers {
    fn from_iter<I: IntoIterator<Item = (String, Secret)>>(headers: I) -> Self {
        let mut map = Headers::new();
        for (name, value) in headers {
            map.insert(name, value);
        }
        map
    }
}

impl<const N: usize> From<[(String, Secret); N]> for Headers {
    fn from(headers: [(String, Secret); N]) -> Self {
        headers.into_iter().collect()
    }
}

impl<'a> IntoIterator for &'a Headers {
    type Item = &'a (String, Secret);
    type IntoIter = std::slice::Iter<'a, (String, Secret)>;

    fn into_iter(self) -> Self::IntoIter {
        self.0.iter()
    }
}

impl Serialize for Headers {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_map(self.iter().map(|(n, v)| (n, v)))
    }
}

impl<'de> Deserialize<'de> for Headers {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        IndexMap::<String, Secret>::deserialize(deserializer).map(|m| m.into_iter().collect())
    }
}

/// Tool names in the order they were added, each once. A `Vec` rather than an `IndexSet`: a
/// server has a handful, and the set's hashing, insert, remove and clone were 3.7 KB of the
/// worker. Reads and compares as the set did: repeats are dropped, order does not count in `==`.
#[derive(Debug, Clone, Default)]
pub struct ToolNames(Vec<String>);

impl ToolNames {
    pub fn new() -> Self {
        ToolNames(Vec::new())
    }

    /// Adds a name at the end; `false` when it was there already.
    pub fn insert(&mut self, name: String) -> bool {
        let new = !self.contains(&name);
        if new {
            self.0.push(name);
        }
        new
    }

    /// Removes a name, keeping the order of the others; `false` when it was not there.
    pub fn remove(&mut self, name: &str) -> bool {
        let before = self.0.len();
        self.0.retain(|n| n != name);
        self.0.len() != before
    }

    pub fn contains(&self, name: &str) -> bool {
        self.0.iter().any(|n| n == name)
    }

    pub fn clear(&mut self) {
        self.0.clear();
    }

    pub fn len(&self) -> usize {
        self.0.len()
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    pub fn iter(&self) -> std::slice::Iter<'_, String> {
        self.0.iter()
    }
}

impl PartialEq for ToolNames {
    fn eq(&self, other: &Self) -> bool {
        self.len() == other.len() && self.iter().all(|n| other.contains(n))
    }
}

impl Eq for ToolNames {}

impl Extend<String> for ToolNames {
    fn extend<I: IntoIterator<Item = String>>(&mut self, names: I) {
        for name in names {
            self.insert(name);
        }
    }
}

impl FromIterator<String> for ToolNames {
    fn from_iter<I: IntoIterator<Item = String>>(names: I) -> Self {
        let mut set = ToolNames::new();
        set.extend(names);
        set
    }
}

impl IntoIterator for ToolNames {
    type Item = String;
    type IntoIter = std::vec::IntoIter<String>;

    fn into_iter(self) -> Self::IntoIter {
        self.0.into_iter()
    }
}

impl<'a> IntoIterator for &'a ToolNames {
    type Item = &'a String;
    type IntoIter = std::slice::Iter<'a, String>;

    fn into_iter(self) -> Self::IntoIter {
        self.0.iter()
    }
}

impl Serialize for ToolNames {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_seq(&self.0)
    }
}

impl<'de> Deserialize<'de> for ToolNames {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        Vec::<String>::deserialize(deserializer).map(ToolNames::from_iter)
    }
}

fn yes() -> bool {
    true
}

impl Server {
    /// A server with every setting at its default, to be filled in by an edit or an import.
    pub fn blank(id: ServerId, name: String) -> Server {
        Server {
            id,
            name,
            url: String::new(),
            headers: Headers::new(),
            timeout_ms: DEFAULT_TIMEOUT_MS,
            trust: false,
            include_tools: None,
            exclude_tools: Vec::new(),
            enabled_by_default: true,
            local_network: false,
            cached_tools: None,
            allowed_tools: ToolNames::new(),
        }
    }
}

/// A tool list as the server sent it (`tools/list` result entries), kept opaque: the MCP
/// module reads it, settings only stores it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CachedTools {
    /// Milliseconds since the Unix epoch.
    pub fetched_at_ms: u64,
    pub tools: Vec<Value>,
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
        // ASCII case only: full Unicode lowercasing brings 13 KB of case tables into the worker.
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

    /// An id as the stored document holds it, unchecked, as the derived decoder reads it.
    pub(crate) fn from_stored(text: String) -> Self {
        ServerId(text)
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

#[cfg(test)]
mod tests {
    use super::*;
    use indexmap::IndexSet;

    /// `Headers` and `ToolNames` replaced an `IndexMap` and an `IndexSet`: same JSON both ways,
    /// same handling of repeats, same `==`.
    #[test]
    fn headers_read_write_and_compare_as_the_map_did() {
        let text = r#"{"B": "1", "A": "2", "B": "3"}"#;
        let map: IndexMap<String, Secret> = serde_json::from_str(text).unwrap();
        let headers: Headers = serde_json::from_str(text).unwrap();
        let pairs = |h: &Headers| -> Vec<(String, Secret)> { h.iter().cloned().collect() };
        assert_eq!(pairs(&headers), map.clone().into_iter().collect::<Vec<_>>());
        assert_eq!(serde_json::to_string(&headers).unwrap(), serde_json::to_string(&map).unwrap());
        let collected: Headers = [
            ("B".into(), Secret::new("1")),
            ("A".into(), Secret::new("2")),
            ("B".into(), Secret::new("3")),
        ]
        .into();
        assert_eq!(pairs(&collected), pairs(&headers));

        let reversed: Headers = map.iter().rev().map(|(n, v)| (n.clone(), v.clone())).collect();
        assert_eq!(reversed, headers);
        let mut other = headers.clone();
        other.insert("A".into(), Secret::new("x"));
        assert_ne!(other, headers);
        other.remove("A");
        assert_ne!(other, headers);
        assert_eq!(other.iter().map(|(n, _)| n.as_str()).collect::<Vec<_>>(), ["B"]);
        assert_eq!(format!("{headers:?}"), format!("{map:?}"));
    }

    #[test]
    fn tool_names_read_write_and_compare_as_the_set_did() {
        let text = r#"["b", "a", "b", "c"]"#;
        let set: IndexSet<String> = serde_json::from_str(text).unwrap();
        let mut names: ToolNames = serde_json::from_str(text).unwrap();
        assert!(names.iter().eq(set.iter()));
        assert_eq!(serde_json::to_string(&names).unwrap(), serde_json::to_string(&set).unwrap());

        let reversed: ToolNames = set.iter().rev().cloned().collect();
        assert_eq!(reversed, names);
        assert!(!names.insert("a".into()) && names.insert("d".into()));
        assert!(names.remove("a") && !names.remove("a"));
        assert!(names.iter().eq(["b", "c", "d"]));
        assert_ne!(reversed, names);
    }
}
