//! The Content-Security-Policy an app runs under.
//!
//! The extension manifest's sandbox CSP is the ceiling for every app; this policy, placed in the
//! app's document, narrows it to what the app declared in `_meta.ui.csp`. Only well-formed web
//! origins are taken (`https://host[:port]`, `https://*.host`, `wss://…`, and `http(s)`/`ws` on
//! loopback); anything else (keywords, schemes, paths, `*`, separators) is left out and reported,
//! so a declaration can never add a source the person did not see declared.

use serde::{Deserialize, Serialize};

/// `_meta.ui.csp` of an app resource.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct DeclaredCsp {
    /// `connect-src`: fetch, XHR, WebSocket.
    #[serde(default)]
    pub connect_domains: Vec<String>,
    /// Scripts, styles, images, fonts and media.
    #[serde(default)]
    pub resource_domains: Vec<String>,
    /// `frame-src`.
    #[serde(default)]
    pub frame_domains: Vec<String>,
    /// `base-uri`.
    #[serde(default)]
    pub base_uri_domains: Vec<String>,
}

/// A declared source that was left out, and why.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Refused {
    pub source: String,
    pub field: &'static str,
}

/// The policy and what was left out of it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Policy {
    pub header: String,
    pub refused: Vec<Refused>,
    /// The declaration as applied (only accepted sources), to tell the app in `ui/initialize`.
    pub applied: DeclaredCsp,
}

/// The policy for an app that declared `declared` (or nothing).
pub fn policy(declared: Option<&DeclaredCsp>) -> Policy {
    let empty = DeclaredCsp::default();
    let declared = declared.unwrap_or(&empty);
    let mut refused = Vec::new();
    let mut take = |field: &'static str, sources: &[String]| -> Vec<String> {
        let mut kept: Vec<String> = Vec::new();
        for source in sources {
            match normalise(source) {
                Some(origin) if !kept.contains(&origin) => kept.push(origin),
                Some(_) => {}
                None => refused.push(Refused { source: source.chars().take(200).collect(), field }),
            }
        }
        kept
    };
    let applied = DeclaredCsp {
        connect_domains: take("connectDomains", &declared.connect_domains),
        resource_domains: take("resourceDomains", &declared.resource_domains),
        frame_domains: take("frameDomains", &declared.frame_domains),
        base_uri_domains: take("baseUriDomains", &declared.base_uri_domains),
    };
    let list = |fixed: &[&str], extra: &[String]| -> String {
        let all: Vec<&str> =
            fixed.iter().copied().chain(extra.iter().map(String::as_str)).collect();
        if all.is_empty() {
            "'none'".to_owned()
        } else {
            all.join(" ")
        }
    };
    let resources = &applied.resource_domains;
    let directives = [
        ("default-src", "'none'".to_owned()),
        // Apps are single HTML files with inline scripts and styles. Eval adds nothing an
        // inline script cannot already do inside the frame, and apps that run code they were
        // given (the SDK's three.js example) need it, as the SDK's reference host allows.
        ("script-src", list(&["'unsafe-inline'", "'unsafe-eval'", "blob:"], resources)),
        ("style-src", list(&["'unsafe-inline'"], resources)),
        ("img-src", list(&["data:", "blob:"], resources)),
        ("font-src", list(&["data:"], resources)),
        ("media-src", list(&["data:", "blob:"], resources)),
        ("connect-src", list(&[], &applied.connect_domains)),
        ("frame-src", list(&[], &applied.frame_domains)),
        ("base-uri", list(&[], &applied.base_uri_domains)),
        ("worker-src", "blob:".to_owned()),
        ("object-src", "'none'".to_owned()),
        ("form-action", "'none'".to_owned()),
    ];
    let header =
        directives.iter().map(|(name, value)| format!("{name} {value}")).collect::<Vec<_>>();
    Policy { header: header.join("; "), refused, applied }
}

/// The source as a CSP origin, or `None` when it is not one this host accepts.
fn normalise(source: &str) -> Option<String> {
    let source = source.trim().trim_end_matches('/');
    let (scheme, rest) = source.split_once("://")?;
    let scheme = scheme.to_ascii_lowercase();
    let (host, port) = match rest.rsplit_once(':') {
        // `[::1]:8080` and `host:443`; a bare IPv6 address has no port after its `]`.
        Some((host, port)) if !port.contains(']') => (host, Some(port)),
        _ => (rest, None),
    };
    if let Some(port) = port {
        let number = port.bytes().all(|b| b.is_ascii_digit()) && port.parse::<u16>().is_ok();
        if port != "*" && !number {
            return None;
        }
    }
    let host = host.to_ascii_lowercase();
    let loopback = matches!(host.as_str(), "localhost" | "127.0.0.1" | "[::1]");
    let secure = matches!(scheme.as_str(), "https" | "wss");
    let plain = matches!(scheme.as_str(), "http" | "ws");
    if !(secure || plain && loopback) || !valid_host(&host) {
        return None;
    }
    Some(match port {
        Some(port) => format!("{scheme}://{host}:{port}"),
        None => format!("{scheme}://{host}"),
    })
}

/// A DNS name (optionally `*.` first), an IPv4 address, or a bracketed IPv6 address; nothing
/// that could end the source list or the directive.
fn valid_host(host: &str) -> bool {
    if let Some(inner) = host.strip_prefix('[').and_then(|h| h.strip_suffix(']')) {
        return !inner.is_empty()
            && inner.bytes().all(|b| b.is_ascii_hexdigit() || b == b':' || b == b'.');
    }
    let name = host.strip_prefix("*.").unwrap_or(host);
    let label_ok = |label: &str| {
        !label.is_empty()
            && label.len() <= 63
            && label.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-')
            && !label.starts_with('-')
            && !label.ends_with('-')
    };
    // A wildcard needs a registrable name under it: `*.com` would be nearly everything.
    let labels: Vec<&str> = name.split('.').collect();
    let enough = !host.starts_with("*.") || labels.len() >= 2;
    !name.is_empty() && name.len() <= 253 && labels.iter().all(|l| label_ok(l)) && enough
}

#[cfg(test)]
mod tests {
    use super::*;

    fn declared(connect: &[&str], resources: &[&str]) -> DeclaredCsp {
        DeclaredCsp {
            connect_domains: connect.iter().map(|s| s.to_string()).collect(),
            resource_domains: resources.iter().map(|s| s.to_string()).collect(),
            ..DeclaredCsp::default()
        }
    }

    #[test]
    fn nothing_declared_is_the_restrictive_default() {
        let policy = policy(None);
        assert!(policy
            .header
            .starts_with("default-src 'none'; script-src 'unsafe-inline' 'unsafe-eval' blob:;"));
        assert!(policy.header.contains("connect-src 'none'"));
        assert!(policy.header.contains("frame-src 'none'"));
        assert!(policy.header.contains("form-action 'none'"));
        assert!(!policy.header.contains("https:"));
        assert!(policy.refused.is_empty());
    }

    #[test]
    fn declared_origins_are_added_where_they_belong() {
        let policy = policy(Some(&declared(
            &["https://api.example.com", "wss://live.example.com:8443/"],
            &["https://*.cdn.example.net"],
        )));
        assert!(policy
            .header
            .contains("connect-src https://api.example.com wss://live.example.com:8443;"));
        assert!(policy
            .header
            .contains("script-src 'unsafe-inline' 'unsafe-eval' blob: https://*.cdn.example.net;"));
        assert!(policy.header.contains("img-src data: blob: https://*.cdn.example.net;"));
        assert_eq!(policy.applied.connect_domains.len(), 2);
    }

    #[test]
    fn anything_but_an_origin_is_left_out_and_reported() {
        let hostile = [
            "*",
            "https:",
            "'unsafe-eval'",
            "https://a.example; script-src *",
            "https://a.example https://b.example",
            "data:",
            "javascript:alert(1)",
            "http://example.com",
            "https://*.com",
            "https://a.example/path",
            "https://a.example:99999",
            "https://exa\"mple.com",
            "chrome-extension://abc",
        ];
        let policy = policy(Some(&declared(&hostile, &[])));
        assert_eq!(policy.refused.len(), hostile.len(), "{:?}", policy.refused);
        assert!(policy.header.contains("connect-src 'none'"));
        assert!(policy.applied.connect_domains.is_empty());
    }

    #[test]
    fn loopback_may_be_plain_http() {
        let policy = policy(Some(&declared(&["http://127.0.0.1:8080", "http://localhost:*"], &[])));
        assert!(policy.header.contains("connect-src http://127.0.0.1:8080 http://localhost:*;"));
    }
}
