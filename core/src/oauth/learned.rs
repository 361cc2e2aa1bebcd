//! The URL policy for everything a server tells us during sign-in.
//!
//! A learned URL must be https and public ([`Policy::Learned`]). The one exception (issue 12):
//! when the MCP server itself is a configured local server (loopback, or a private address the
//! person ticked), URLs on that same host may be what a configured URL there may be. A local
//! development server with its authorization server on another port then works, while a public
//! server still cannot point us at the person's machine or network.

use super::error::Error;
use crate::url_policy::{self, classify_host, HostClass, Policy};
use crate::web_url::{self, WebUrl};

pub(crate) struct UrlRules {
    /// The MCP server's host when it is a local one.
    local_host: Option<String>,
}

impl UrlRules {
    pub fn for_server(server: &WebUrl) -> UrlRules {
        let local = server.host().is_some_and(|h| classify_host(&h) != HostClass::Public);
        UrlRules { local_host: local.then(|| server.hostname.clone()) }
    }

    /// Parses and checks a URL the server gave as `field` (named in the error).
    pub fn check(&self, field: &str, raw: &str) -> Result<WebUrl, Error> {
        let url = web_url::parse(raw.trim())
            .ok_or_else(|| Error::UrlInvalid { field: field.to_owned() })?;
        let policy = if self.local_host.as_deref() == Some(url.hostname.as_str()) {
            Policy::Configured { local_network: true }
        } else {
            Policy::Learned
        };
        url_policy::check_parsed(&url, policy).map_err(|refusal| Error::UrlRefused {
            field: field.to_owned(),
            host: url.hostname.clone(),
            reason: refusal.kind(),
        })?;
        Ok(url)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::url_policy::RefusalKind;

    fn rules(server: &str) -> UrlRules {
        UrlRules::for_server(&web_url::parse(server).unwrap())
    }

    #[test]
    fn a_public_server_teaches_only_public_https_urls() {
        let public = rules("https://mcp.example.com/mcp");
        assert!(public.check("token endpoint", "https://auth.example.com/token").is_ok());
        for (url, reason) in [
            ("http://auth.example.com/token", RefusalKind::Insecure),
            ("https://169.254.169.254/latest", RefusalKind::Metadata),
            ("https://127.0.0.1/", RefusalKind::NotPublic),
            ("https://10.0.0.1/", RefusalKind::NotPublic),
            ("https://[::ffff:127.0.0.1]/", RefusalKind::NotPublic),
            ("https://2130706433/", RefusalKind::NotPublic),
            ("https://0177.0.0.1/", RefusalKind::NotPublic),
            ("https://0x7f.1/", RefusalKind::NotPublic),
            ("https://localhost/", RefusalKind::NotPublic),
            ("javascript:alert(1)", RefusalKind::Scheme),
        ] {
            match public.check("token endpoint", url) {
                Err(Error::UrlRefused { reason: found, .. }) => assert_eq!(found, reason, "{url}"),
                other => panic!("{url}: {other:?}"),
            }
        }
    }

    #[test]
    fn a_local_server_may_teach_urls_on_its_own_host_only() {
        let local = rules("http://localhost:3000/mcp");
        assert!(local.check("authorization server", "http://localhost:3001").is_ok());
        assert!(local.check("authorization server", "https://auth.example.com").is_ok());
        assert!(local.check("authorization server", "http://127.0.0.1:3001").is_err());
        assert!(local.check("authorization server", "https://169.254.169.254").is_err());
        let lan = rules("https://192.168.1.5/mcp");
        assert!(lan.check("token endpoint", "https://192.168.1.5:8443/token").is_ok());
        assert!(lan.check("token endpoint", "http://192.168.1.5:8080/token").is_err());
        assert!(lan.check("token endpoint", "https://192.168.1.6/token").is_err());
    }
}
