//! URLs as the WHATWG URL standard parses them, and the only place core parses URLs.
//!
//! In wasm the browser's own parser does it (`new URL()`): the one `fetch` will use for the same
//! string, so the URL policy judges exactly the address the browser will connect to (and the
//! `url` crate's IDNA tables stay out of every module). Natively the `url` crate does it, which
//! implements the same standard; `tests/web_url.rs` runs one table of cases against both.
//!
//! Internationalised host names come out in their punycode (`xn--`) form from both parsers.

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

/// `scheme://host/*` for a URL: the form `chrome.permissions` takes a host permission in (ports
/// are not part of it, <https://developer.chrome.com/docs/extensions/develop/concepts/match-patterns>);
/// `None` for what is not a URL with a host.
pub fn origin_pattern(url: &str) -> Option<String> {
    let url = parse(url)?;
    Some(format!("{}://{}/*", url.scheme, url.host_str()?))
}

/// The origin a pattern of [`origin_pattern`] stands for, as pages show and ask for it.
pub fn pattern_origin(pattern: &str) -> String {
    pattern.trim_end_matches("/*").to_owned()
}

/// False for the hosts Chromium accepts against the standard: it percent-escapes a space or `<`
/// in a host name where the standard refuses the URL. The standard never leaves a `%` in the
/// host of an http(s), ws(s), ftp or file URL, so one there means the browser bent the rules.
fn standard_host(url: &WebUrl) -> bool {
    const SPECIAL: [&str; 6] = ["http", "https", "ws", "wss", "ftp", "file"];
    !(SPECIAL.contains(&url.scheme.as_str()) && url.hostname.contains('%'))
}

/// The part of a serialised URL after its first `delimiter`, `None` without one. `?` and `#`
/// only appear unescaped as delimiters in a serialised URL (`#` always starts the fragment; the
/// first `?` before it starts the query).
#[cfg_attr(not(target_arch = "wasm32"), allow(dead_code))]
fn part_after(href: &str, delimiter: char) -> Option<String> {
    let before_fragment = if delimiter == '#' { href } else { href.split('#').next()? };
    before_fragment.split_once(delimiter).map(|(_, rest)| rest.to_owned())
}

#[cfg(not(target_arch = "wasm32"))]
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

#[cfg(target_arch = "wasm32")]
mod platform {
    use super::{part_after, WebUrl};
    use web_sys::Url;

    /// `new URL()` throws on anything it cannot parse; web-sys binds it with `catch`, so the
    /// throw arrives as an `Err` instead of unwinding through wasm.
    pub fn parse(input: &str, base: Option<&str>) -> Option<WebUrl> {
        let url = match base {
            Some(base) => Url::new_with_base(input, base).ok()?,
            None => Url::new(input).ok()?,
        };
        let href = url.href();
        let port = url.port();
        Some(WebUrl {
            scheme: url.protocol().trim_end_matches(':').to_owned(),
            username: url.username(),
            password: url.password(),
            hostname: url.hostname(),
            port: if port.is_empty() { None } else { Some(port.parse().ok()?) },
            pathname: url.pathname(),
            // `search` and `hash` are "" both for no delimiter and for a bare one; the href tells.
            query: part_after(&href, '?'),
            fragment: part_after(&href, '#'),
            href,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn query_and_fragment_are_read_from_the_serialised_url() {
        assert_eq!(part_after("https://a/p?q=1#f?g", '?').as_deref(), Some("q=1"));
        assert_eq!(part_after("https://a/p?q=1#f?g", '#').as_deref(), Some("f?g"));
        assert_eq!(part_after("https://a/p#f?g", '?'), None);
        assert_eq!(part_after("https://a/p?", '?').as_deref(), Some(""));
        assert_eq!(part_after("https://a/p#", '#').as_deref(), Some(""));
    }

    #[test]
    fn a_host_permission_names_scheme_and_host_only() {
        let pattern = origin_pattern("https://user:pw@MCP.Example.com:8443/mcp?x=1#f");
        assert_eq!(pattern.as_deref(), Some("https://mcp.example.com/*"));
        assert_eq!(origin_pattern("http://[::1]:3000/").as_deref(), Some("http://[::1]/*"));
        assert_eq!(pattern_origin("https://mcp.example.com/*"), "https://mcp.example.com");
        assert_eq!(origin_pattern("not a url"), None);
        assert_eq!(origin_pattern("mailto:a@example.com"), None);
    }
}
