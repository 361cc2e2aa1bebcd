//! URLs as the WHATWG URL standard parses them (the `url` crate), and the only place core
//! parses URLs. The same parser runs natively and in wasm, so what the native tests check is
//! what the extension does; `tests/web_url.rs` also runs in Chromium.
//!
//! Internationalised host names come out in their punycode (`xn--`) form.

/// The parts of a parsed URL, in their WHATWG serialisation.
#[derive(Clone, PartialEq, Eq)]
pub struct WebUrl {
    /// The whole URL, normalised.
    href: String,
    /// `https`, without the colon.
    pub scheme: String,
    /// Percent-encoded; empty when there is none.
    pub username: String,
    /// Percent-encoded; empty when there is none (the standard does not tell `a:@` from `a@`).
    pub password: String,
    /// Lower-cased names in punycode, IPv4 in dotted decimal, IPv6 compressed and in brackets;
    /// empty when the URL has no host.
    pub hostname: String,
    /// The port when one is given and it is not the scheme's default.
    pub port: Option<u16>,
    pub pathname: String,
    /// The query without its `?`, `None` when there is no `?` at all.
    pub query: Option<String>,
    /// The fragment without its `#`, `None` when there is no `#` at all.
    pub fragment: Option<String>,
}

/// What kind of host a URL has, from its normalised host name.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Host<'a> {
    Domain(&'a str),
    Ipv4(std::net::Ipv4Addr),
    Ipv6(std::net::Ipv6Addr),
}

impl WebUrl {
    /// The normalised URL.
    pub fn as_str(&self) -> &str {
        &self.href
    }

    /// The host name, `None` when the URL has none.
    pub fn host_str(&self) -> Option<&str> {
        (!self.hostname.is_empty()).then_some(self.hostname.as_str())
    }

    /// The host, classified. The parser has already turned every IPv4 spelling into dotted
    /// decimal and IPv6 into its canonical form, so std's strict parsers read them.
    pub fn host(&self) -> Option<Host<'_>> {
        let name = self.host_str()?;
        if let Some(v6) = name.strip_prefix('[').and_then(|n| n.strip_suffix(']')) {
            return v6.parse().ok().map(Host::Ipv6);
        }
        Some(name.parse().map_or(Host::Domain(name), Host::Ipv4))
    }

    /// `scheme://host[:port]`: two URLs of one origin may share credentials.
    pub fn origin(&self) -> String {
        match self.port {
            Some(port) => format!("{}://{}:{port}", self.scheme, self.hostname),
            None => format!("{}://{}", self.scheme, self.hostname),
        }
    }

    /// The URL without user info, query and fragment, for messages (those parts can hold secrets).
    pub fn without_secrets(&self) -> String {
        let mut out = format!("{}:", self.scheme);
        if self.href.get(out.len()..).is_some_and(|rest| rest.starts_with("//")) {
            out.push_str("//");
            out.push_str(&self.hostname);
            if let Some(port) = self.port {
                out.push_str(&format!(":{port}"));
            }
        }
        out.push_str(&self.pathname);
        out
    }
}

impl From<WebUrl> for String {
    fn from(url: WebUrl) -> String {
        url.href
    }
}

impl std::fmt::Display for WebUrl {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.href)
    }
}

/// Shows only what [`WebUrl::without_secrets`] shows: debug output ends up in logs.
impl std::fmt::Debug for WebUrl {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "WebUrl({})", self.without_secrets())
    }
}

/// Parses an absolute URL; `None` when it is not one.
pub fn parse(input: &str) -> Option<WebUrl> {
    platform::parse(input, None).filter(standard_host)
}

/// Resolves `relative` against `base`, as a link in a page at `base` would be.
pub fn join(base: &str, relative: &str) -> Option<WebUrl> {
    platform::parse(relative, Some(base)).filter(standard_host)
}

/// False for the hosts Chromium accepts against the standard: it percent-escapes a space or `<`
/// in a host name where the standard refuses the URL. The standard never leaves a `%` in the
/// host of an http(s), ws(s), ftp or file URL, so one there means the browser bent the rules.
fn standard_host(url: &WebUrl) -> bool {
    const SPECIAL: [&str; 6] = ["http", "https", "ws", "wss", "ftp", "file"];
    !(SPECIAL.contains(&url.scheme.as_str()) && url.hostname.contains('%'))
}

mod platform {
    use super::WebUrl;

    pub fn parse(input: &str, base: Option<&str>) -> Option<WebUrl> {
        let url = match base {
            Some(base) => url::Url::parse(base).ok()?.join(input).ok()?,
            None => url::Url::parse(input).ok()?,
        };
        Some(WebUrl {
            scheme: url.scheme().to_owned(),
            username: url.username().to_owned(),
            password: url.password().unwrap_or_default().to_owned(),
            hostname: url.host_str().unwrap_or_default().to_owned(),
            port: url.port(),
            pathname: url.path().to_owned(),
            query: url.query().map(str::to_owned),
            fragment: url.fragment().map(str::to_owned),
            href: url.into(),
        })
    }
}
