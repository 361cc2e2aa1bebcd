//! Sign-in's POSTs leave without an `Origin` header (issue 22, item 16).
//!
//! The worker's `fetch` sends `Origin: chrome-extension://<id>` with every POST. Authorization
//! servers that check the origin of browser requests for public clients (oidc-provider's
//! default CORS policy, and many deployed servers alike) refuse the token request: the origin
//! is not the one of the client's redirect URI (`https://<id>.chromiumapp.org/…`). A native
//! app sends no `Origin`, and neither does this extension once a `declarativeNetRequest`
//! session rule removes it from its own requests to the one URL being posted to: its token,
//! registration or revocation endpoint, nothing else (verified on Chromium 156: the rule
//! changes the service worker's own requests, and only those it names).
//!
//! Here: the rule's id and URL pattern for an endpoint; the worker installs it.

use sha2::{Digest, Sha256};

/// The session rule for one endpoint: `regex` matches exactly its URL.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OriginRule {
    /// Stable for the URL, so installing it again replaces it instead of adding another.
    pub id: u32,
    /// An RE2 pattern (what `declarativeNetRequest` takes) matching the URL and nothing else.
    pub regex: String,
}

impl OriginRule {
    pub fn for_url(url: &str) -> OriginRule {
        let digest = Sha256::digest(url.as_bytes());
        let hash = u32::from_be_bytes([digest[0], digest[1], digest[2], digest[3]]);
        // Rule ids are positive 32-bit integers.
        let id = hash % (i32::MAX as u32) + 1;
        OriginRule { id, regex: format!("^{}$", escape(url)) }
    }
}

/// Every RE2 metacharacter escaped.
fn escape(text: &str) -> String {
    let mut escaped = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        if "\\.+*?()|[]{}^$".contains(c) {
            escaped.push('\\');
        }
        escaped.push(c);
    }
    escaped
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_rule_matches_its_url_only_and_keeps_its_id() {
        let rule = OriginRule::for_url("https://auth.example.com/oauth2/token?tenant=a.b");
        assert_eq!(rule.regex, r"^https://auth\.example\.com/oauth2/token\?tenant=a\.b$");
        assert_eq!(rule, OriginRule::for_url("https://auth.example.com/oauth2/token?tenant=a.b"));
        assert_ne!(rule.id, OriginRule::for_url("https://auth.example.com/register").id);
        assert!((1..=i32::MAX as u32).contains(&rule.id));
    }
}
