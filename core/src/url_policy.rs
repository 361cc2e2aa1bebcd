//! Which URLs GemiPanel may fetch.
//!
//! Two policies. A URL the user configured as an MCP server may point at loopback (over http or
//! https) and, when the user ticked "local network server" for it, at a private network address
//! over https; anything else must be https. A URL learned from a server (OAuth metadata,
//! authorization, token and registration endpoints) must be https and public: a server must not
//! be able to steer the extension at the user's router, a cloud metadata service or localhost.
//!
//! Host names are normalised by the WHATWG parser first ([`crate::web_url`]: the browser's in
//! wasm, the `url` crate natively), which already turns decimal (`2130706433`), octal
//! (`0177.0.0.1`), hex (`0x7f.1`) and short (`127.1`) IPv4 forms into plain addresses,
//! lower-cases names and turns internationalised ones (full-width digits included) into their
//! punycode (`xn--`) form or an address. What it leaves is done here: trailing dots on names and
//! IPv4 addresses hidden inside IPv6 ones (mapped, compatible, NAT64, 6to4).
//!
//! What no URL check can see: a public name that resolves to a private address (DNS rebinding).
//! The browser resolves names, not us.

use std::fmt;
use std::net::{Ipv4Addr, Ipv6Addr};

use crate::text::Text;
use crate::web_url::{self, Host, WebUrl};

/// Where a URL came from, which decides what it may point at.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Policy {
    /// An MCP server URL the user typed or imported. `local_network` is the user's
    /// "local network server" tick for that server.
    Configured { local_network: bool },
    /// A URL a server told us to fetch: OAuth metadata, authorization, token, registration.
    Learned,
}

/// What a host is, after normalisation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HostClass {
    Public,
    /// 127.0.0.0/8, ::1, `localhost` and `*.localhost`.
    Loopback,
    /// RFC 1918, CGNAT 100.64/10, fc00::/7, fec0::/10, and names that only resolve on a local
    /// network (`.local`, `.lan`, `.internal`, `.home.arpa`, single-label names).
    PrivateNetwork,
    /// 169.254/16 and fe80::/10.
    LinkLocal,
    /// Cloud instance metadata services, which hand out credentials to whoever asks.
    Metadata,
    /// Addresses nothing should be fetched from: 0.0.0.0/8, ::, multicast, broadcast, 240/4.
    Unroutable,
}

/// The host permissions `manifest.json` grants at install (a tidy test keeps the two equal):
/// the usual names of this computer over http. Every other URL the policy accepts needs a
/// permission requested in the person's click ([`host_permission`]).
pub const MANIFEST_HOST_PERMISSIONS: [&str; 3] =
    ["http://127.0.0.1/*", "http://localhost/*", "http://[::1]/*"];

/// The `chrome.permissions` origin pattern to request before GemiPanel may fetch `url`, or
/// `None` when the manifest already grants it (or the URL is not one at all). Patterns carry no
/// port: they match every port of the host.
pub fn host_permission(url: &str) -> Option<String> {
    let parsed = web_url::parse(url.trim())?;
    let host = parsed.host_str()?;
    let pattern = format!("{}://{host}/*", parsed.scheme);
    (!MANIFEST_HOST_PERMISSIONS.contains(&pattern.as_str())).then_some(pattern)
}

/// A link a server (URL-mode elicitation) or an app (`ui/open-link`) asks the person to open,
/// checked by [`link`] or [`app_link`]. What to show before the person agrees: the host as the
/// browser will reach it, and, for an internationalised name, the same name in its own script.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Link {
    pub href: String,
    /// `xn--pple-43d.com:8443`: the name as the browser resolves it, with the port.
    pub host: String,
    /// `аpple.com:8443` when the name has `xn--` labels: what it looks like.
    pub host_unicode: Option<String>,
}

/// Checks a link a server asks to open (URL-mode elicitation) before it is offered to the
/// person. Anything but https (or http to this computer) is refused: `javascript:`, `data:`,
/// `file:`, other extensions' pages, custom protocol handlers.
pub fn link(input: &str) -> Result<Link, Text> {
    let url = web_url::parse(input.trim()).ok_or_else(|| Text::new("errLinkInvalid"))?;
    let host = url.host().ok_or_else(|| Text::new("errLinkScheme").arg(&url.scheme))?;
    let allowed = match url.scheme.as_str() {
        "https" => true,
        "http" => classify_host(&host) == HostClass::Loopback,
        _ => false,
    };
    if !allowed {
        return Err(Text::new("errLinkScheme").arg(&url.scheme));
    }
    Ok(shown(&url))
}

/// Checks a link an MCP App asks to open (`ui/open-link`), which opens in a new tab once the
/// person has seen it and agreed: http or https to any host. Every other scheme is refused, and
/// so is a user name or password, which can make a link look as if it went to another host.
pub fn app_link(input: &str) -> Result<Link, Text> {
    let url = web_url::parse(input.trim()).ok_or_else(|| Text::new("errAppLinkInvalid"))?;
    if !matches!(url.scheme.as_str(), "http" | "https") || url.host().is_none() {
        return Err(Text::new("errAppLinkScheme").arg(&url.scheme));
    }
    if !url.username.is_empty() || !url.password.is_empty() {
        return Err(Text::new("errAppLinkUserInfo"));
    }
    Ok(shown(&url))
}

/// A checked link with its host as the person should see it.
fn shown(url: &WebUrl) -> Link {
    let port = url.port.map(|p| format!(":{p}")).unwrap_or_default();
    let name = url.hostname.clone();
    let unicode = name
        .split('.')
        .any(|label| label.starts_with("xn--"))
        .then(|| unicode_name(&name))
        .flatten()
        .filter(|u| *u != name);
    Link {
        href: url.as_str().to_owned(),
        host: format!("{name}{port}"),
        host_unicode: unicode.map(|u| format!("{u}{port}")),
    }
}

/// A host name with its `xn--` labels decoded (punycode, RFC 3492).
fn unicode_name(ascii: &str) -> Option<String> {
    let labels: Option<Vec<String>> = ascii
        .split('.')
        .map(|label| match label.strip_prefix("xn--") {
            Some(encoded) => idna::punycode::decode_to_string(encoded),
            None => Some(label.to_owned()),
        })
        .collect();
    labels.map(|l| l.join("."))
}

/// Why a URL was refused. `Display` is a sentence to show next to the URL field; it names the
/// host but never the whole URL, whose user info or query may carry secrets.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UrlRefusal {
    kind: RefusalKind,
    detail: String,
}

/// The reason behind a [`UrlRefusal`], for code that reacts to it (e.g. highlights the tick box).
/// Serialisable because OAuth errors carry it to the pages, which word it themselves.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RefusalKind {
    /// Not a URL at all.
    Unparsable,
    /// Not http or https.
    Scheme,
    /// `user:password@` in the URL.
    UserInfo,
    /// A `#fragment`, which a server URL or an OAuth endpoint never has.
    Fragment,
    NoHost,
    /// http to something other than loopback (configured) or http at all (learned).
    Insecure,
    /// A private network address the user has not ticked "local network server" for.
    NeedsLocalNetwork,
    /// A learned URL pointing at loopback, a private network or link-local address.
    NotPublic,
    Metadata,
    Unroutable,
}

impl UrlRefusal {
    pub fn kind(&self) -> RefusalKind {
        self.kind
    }

    /// True when ticking "local network server" would make the URL acceptable.
    pub fn needs_local_network(&self) -> bool {
        self.kind == RefusalKind::NeedsLocalNetwork
    }

    fn new(kind: RefusalKind, detail: impl Into<String>) -> Self {
        UrlRefusal { kind, detail: detail.into() }
    }
}

impl UrlRefusal {
    /// Why, in words for a person (see `core::text`).
    pub fn text(&self) -> Text {
        let key = match self.kind {
            RefusalKind::Unparsable => "errUrlUnparsable",
            RefusalKind::Scheme => "errUrlScheme",
            RefusalKind::UserInfo => "errUrlUserInfo",
            RefusalKind::Fragment => "errUrlFragment",
            RefusalKind::NoHost => "errUrlNoHost",
            RefusalKind::Insecure => "errUrlInsecure",
            RefusalKind::NeedsLocalNetwork => "errUrlNeedsLocalNetwork",
            RefusalKind::NotPublic => "errUrlNotPublic",
            RefusalKind::Metadata => "errUrlMetadata",
            RefusalKind::Unroutable => "errUrlUnroutable",
        };
        let text = Text::new(key);
        if self.detail.is_empty() {
            text
        } else {
            text.arg(&self.detail)
        }
    }
}

impl fmt::Display for UrlRefusal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.text().fmt(f)
    }
}

impl std::error::Error for UrlRefusal {}

/// Parses `input` and checks it against `policy`. Returns the normalised URL to fetch.
pub fn check(input: &str, policy: Policy) -> Result<WebUrl, UrlRefusal> {
    // Parse errors are not spelled out: the browser gives no reason worth showing.
    let url =
        web_url::parse(input.trim()).ok_or_else(|| UrlRefusal::new(RefusalKind::Unparsable, ""))?;
    check_parsed(&url, policy)?;
    Ok(url)
}

/// Checks an already parsed URL against `policy`.
pub fn check_parsed(url: &WebUrl, policy: Policy) -> Result<(), UrlRefusal> {
    let https = match url.scheme.as_str() {
        "https" => true,
        "http" => false,
        _ => return Err(UrlRefusal::new(RefusalKind::Scheme, "")),
    };
    if !url.username.is_empty() || !url.password.is_empty() {
        return Err(UrlRefusal::new(RefusalKind::UserInfo, ""));
    }
    if url.fragment.is_some() {
        return Err(UrlRefusal::new(RefusalKind::Fragment, ""));
    }
    let Some(host) = url.host() else {
        return Err(UrlRefusal::new(RefusalKind::NoHost, ""));
    };
    let shown = url.host_str().unwrap_or_default().to_string();
    let class = classify_host(&host);
    match class {
        HostClass::Metadata => return Err(UrlRefusal::new(RefusalKind::Metadata, shown)),
        HostClass::Unroutable => return Err(UrlRefusal::new(RefusalKind::Unroutable, shown)),
        _ => {}
    }
    match policy {
        Policy::Learned => {
            if !https {
                return Err(UrlRefusal::new(RefusalKind::Insecure, shown));
            }
            if class != HostClass::Public {
                return Err(UrlRefusal::new(RefusalKind::NotPublic, shown));
            }
        }
        Policy::Configured { local_network } => {
            // The scheme is checked before the tick so that a person is not asked to tick a box
            // only to be told next that http is refused anyway.
            if !https && class != HostClass::Loopback {
                return Err(UrlRefusal::new(RefusalKind::Insecure, shown));
            }
            let private = matches!(class, HostClass::PrivateNetwork | HostClass::LinkLocal);
            if private && !local_network {
                return Err(UrlRefusal::new(RefusalKind::NeedsLocalNetwork, shown));
            }
        }
    }
    Ok(())
}

/// True when a configured URL is acceptable only with the "local network server" tick.
pub fn needs_local_network(url: &WebUrl) -> bool {
    url.host()
        .map(|h| matches!(classify_host(&h), HostClass::PrivateNetwork | HostClass::LinkLocal))
        .unwrap_or(false)
}

/// Classifies a host of a parsed URL.
pub fn classify_host(host: &Host<'_>) -> HostClass {
    match host {
        Host::Ipv4(ip) => classify_ipv4(*ip),
        Host::Ipv6(ip) => classify_ipv6(*ip),
        Host::Domain(name) => classify_domain(name),
    }
}

fn classify_domain(name: &str) -> HostClass {
    let name = name.to_ascii_lowercase();
    // `localhost.` and `localhost` are the same name to a resolver.
    let name = name.strip_suffix('.').unwrap_or(&name);
    if name.is_empty() {
        return HostClass::Unroutable;
    }
    // A parser could leave `127.0.0.1.` style hosts with a trailing dot as names; parse what is
    // left once more so no IPv4 form slips through as a "name".
    if let Some(Host::Ipv4(ip)) =
        web_url::parse(&format!("http://{name}/")).as_ref().and_then(WebUrl::host)
    {
        return classify_ipv4(ip);
    }
    const METADATA_NAMES: [&str; 3] = ["metadata.google.internal", "metadata.goog", "metadata"];
    if METADATA_NAMES.contains(&name) {
        return HostClass::Metadata;
    }
    if name == "localhost" || name.ends_with(".localhost") {
        return HostClass::Loopback;
    }
    const LOCAL_SUFFIXES: [&str; 5] = [".local", ".lan", ".internal", ".home.arpa", ".intranet"];
    if !name.contains('.') || LOCAL_SUFFIXES.iter().any(|s| name.ends_with(s)) {
        return HostClass::PrivateNetwork;
    }
    HostClass::Public
}

fn classify_ipv4(ip: Ipv4Addr) -> HostClass {
    const METADATA: [Ipv4Addr; 3] = [
        Ipv4Addr::new(169, 254, 169, 254), // AWS, GCP, Azure, most others
        Ipv4Addr::new(169, 254, 170, 2),   // AWS ECS task credentials
        Ipv4Addr::new(100, 100, 100, 200), // Alibaba Cloud
    ];
    let [a, b, _, _] = ip.octets();
    if METADATA.contains(&ip) {
        HostClass::Metadata
    } else if ip.is_loopback() {
        HostClass::Loopback
    } else if a == 0 || ip.is_multicast() || ip.is_broadcast() || a >= 240 {
        HostClass::Unroutable
    } else if ip.is_link_local() {
        HostClass::LinkLocal
    } else if ip.is_private() || (a == 100 && (64..128).contains(&b)) {
        HostClass::PrivateNetwork
    } else {
        HostClass::Public
    }
}

fn classify_ipv6(ip: Ipv6Addr) -> HostClass {
    const AWS_METADATA: Ipv6Addr = Ipv6Addr::new(0xfd00, 0x0ec2, 0, 0, 0, 0, 0, 0x0254);
    if ip == AWS_METADATA {
        return HostClass::Metadata;
    }
    if ip.is_loopback() {
        return HostClass::Loopback;
    }
    if ip.is_unspecified() || ip.is_multicast() {
        return HostClass::Unroutable;
    }
    if let Some(v4) = embedded_ipv4(ip) {
        return classify_ipv4(v4);
    }
    let first = ip.segments()[0];
    if first & 0xfe00 == 0xfc00 || first & 0xffc0 == 0xfec0 {
        HostClass::PrivateNetwork // unique local fc00::/7, deprecated site-local fec0::/10
    } else if first & 0xffc0 == 0xfe80 {
        HostClass::LinkLocal
    } else {
        HostClass::Public
    }
}

/// The IPv4 address an IPv6 address stands for, in the forms that reach an IPv4 host:
/// mapped `::ffff:a.b.c.d`, compatible `::a.b.c.d`, NAT64 `64:ff9b::a.b.c.d`, 6to4 `2002:ab:cd::`.
fn embedded_ipv4(ip: Ipv6Addr) -> Option<Ipv4Addr> {
    let s = ip.segments();
    let low = Ipv4Addr::new((s[6] >> 8) as u8, s[6] as u8, (s[7] >> 8) as u8, s[7] as u8);
    if let Some(v4) = ip.to_ipv4_mapped() {
        Some(v4)
    } else if s[..6] == [0; 6] || s[..6] == [0x64, 0xff9b, 0, 0, 0, 0] {
        Some(low) // compatible (:: and ::1 were handled before) or NAT64
    } else if s[0] == 0x2002 {
        Some(Ipv4Addr::new((s[1] >> 8) as u8, s[1] as u8, (s[2] >> 8) as u8, s[2] as u8))
    } else {
        None
    }
}
