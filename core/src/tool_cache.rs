//! The last tool list of each server, kept by the worker under a storage key of its own (not in
//! the settings document, which every page reads and every edit rewrites), so pages can show a
//! server's tools before it answers. Bounded: a server cannot fill storage.

use serde::{Deserialize, Serialize};

use crate::mcp::Tool;
use crate::settings::ServerId;

/// A list larger than this (as JSON) is used in memory but not stored.
pub const MAX_STORED_BYTES: usize = 1024 * 1024;

/// One server's stored tool list.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CachedTools {
    /// The server URL the list came from: a list is never shown for another address.
    pub url: String,
    /// Milliseconds since the Unix epoch.
    pub fetched_at_ms: u64,
    pub tools: Vec<Tool>,
}

impl CachedTools {
    /// What every stored list's key starts with (the server's id follows).
    pub const STORAGE_PREFIX: &'static str = "tools_cache:";

    /// The `chrome.storage.local` key of a server's list.
    pub fn key(id: &ServerId) -> String {
        format!("{}{id}", Self::STORAGE_PREFIX)
    }

    /// The list as stored, or `None` when it is over [`MAX_STORED_BYTES`].
    pub fn to_stored(&self) -> Option<String> {
        serde_json::to_string(self).ok().filter(|text| text.len() <= MAX_STORED_BYTES)
    }

    /// The tools, if the list is for `url`.
    pub fn for_url(self, url: &str) -> Option<Vec<Tool>> {
        (self.url == url).then_some(self.tools)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_list_is_stored_only_within_its_bound_and_for_its_url() {
        let small = CachedTools {
            url: "https://a/mcp".into(),
            fetched_at_ms: 1,
            tools: vec![Tool::named("t")],
        };
        let stored = small.to_stored().expect("small enough");
        let read: CachedTools = serde_json::from_str(&stored).unwrap();
        assert_eq!(read, small);
        assert_eq!(read.clone().for_url("https://b/mcp"), None);
        assert_eq!(read.for_url("https://a/mcp").map(|t| t.len()), Some(1));

        let mut big = small.clone();
        let mut tool = Tool::named("big");
        tool.description = Some("x".repeat(MAX_STORED_BYTES));
        big.tools.push(tool);
        assert_eq!(big.to_stored(), None);
    }
}
