//! "Delete everything" (the popup's last card): what the worker removes and how it tells the
//! person what went.
//!
//! The worker empties `chrome.storage.local` and `chrome.storage.session` whole rather than key
//! by key: every key there is GemiPanel's (settings, sign-ins, registered clients, the vault
//! record, saved chats, tool caches, MCP sessions, the vault's session key), and a key a future
//! version adds cannot be forgotten. The DPoP keys in IndexedDB go one by one. Before that the
//! tokens are revoked where the authorization server offers it, as a server's removal does.

use serde::{Deserialize, Serialize};

use crate::oauth::Credentials;

/// The saved chats' key prefix in `chrome.storage.local` (the side panel's `chats_store`).
pub const CHAT_PREFIX: &str = "chat:";

/// What Delete everything removed, counted for the person.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Removed {
    pub servers: u32,
    pub sign_ins: u32,
    pub dpop_keys: u32,
    pub chats: u32,
}

impl Removed {
    /// Counts from the names of the `chrome.storage.local` keys before they went, the number
    /// of configured servers and of DPoP keys.
    pub fn tally<'a>(
        local_keys: impl IntoIterator<Item = &'a str>,
        servers: usize,
        dpop_keys: usize,
    ) -> Removed {
        let mut removed =
            Removed { servers: count(servers), dpop_keys: count(dpop_keys), ..Removed::default() };
        for key in local_keys {
            if key.starts_with(Credentials::STORAGE_PREFIX) {
                removed.sign_ins += 1;
            } else if key.starts_with(CHAT_PREFIX) {
                removed.chats += 1;
            }
        }
        removed
    }
}

fn count(n: usize) -> u32 {
    u32::try_from(n).unwrap_or(u32::MAX)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tally_counts_sign_ins_and_chats_by_key_and_nothing_else() {
        let keys = [
            "settings",
            "oauth_credentials:srv_a",
            "oauth_credentials:srv_b",
            "oauth_clients",
            "chats",
            "chat:1",
            "chat:2",
            "chat:3",
            "tools_cache:srv_a",
            "vault",
        ];
        let removed = Removed::tally(keys, 2, 1);
        assert_eq!(removed, Removed { servers: 2, sign_ins: 2, dpop_keys: 1, chats: 3 });
    }

    #[test]
    fn nothing_stored_counts_nothing() {
        assert_eq!(Removed::tally([], 0, 0), Removed::default());
    }
}
