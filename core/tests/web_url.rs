//! The URL parser core relies on, as a table of inputs and the parts they must give. The same
//! table runs natively and in Chromium (`cargo xtask test wasm`), so the parser is held to one
//! answer on both. `url_policy`'s rules build
//! on these parts: a row that changes here changes what a server URL may point at.

use gemipanel_core::web_url::{self, Host, WebUrl};
use std::net::{Ipv4Addr, Ipv6Addr};

#[cfg(target_arch = "wasm32")]
wasm_bindgen_test::wasm_bindgen_test_configure!(run_in_browser);

/// `None`: not a URL. `Some((href, parts))`, the parts as [`describe`] spells them.
type Expect = Option<(&'static str, &'static str)>;

#[rustfmt::skip]
const PARSE: &[(&str, Expect)] = &[
    // Every IPv4 spelling ends up in dotted decimal.
    ("http://2130706433/mcp",           Some(("http://127.0.0.1/mcp", "http host=127.0.0.1 path=/mcp"))),
    ("http://0177.0.0.1/",              Some(("http://127.0.0.1/", "http host=127.0.0.1 path=/"))),
    ("http://0x7f.1/",                  Some(("http://127.0.0.1/", "http host=127.0.0.1 path=/"))),
    ("http://0x7F000001/",              Some(("http://127.0.0.1/", "http host=127.0.0.1 path=/"))),
    ("http://127.1/",                   Some(("http://127.0.0.1/", "http host=127.0.0.1 path=/"))),
    ("http://127.0.0.1./",              Some(("http://127.0.0.1/", "http host=127.0.0.1 path=/"))),
    ("https://169.254.43518/",          Some(("https://169.254.169.254/", "https host=169.254.169.254 path=/"))),
    ("https://0251.0376.0251.0376/",    Some(("https://169.254.169.254/", "https host=169.254.169.254 path=/"))),
    ("http://0/",                       Some(("http://0.0.0.0/", "http host=0.0.0.0 path=/"))),
    // IPv6 compressed, lower-case, in brackets; IPv4 inside it in hex.
    ("http://[::1]:8080/mcp",           Some(("http://[::1]:8080/mcp", "http host=[::1] port=8080 path=/mcp"))),
    ("http://[::ffff:127.0.0.1]/",      Some(("http://[::ffff:7f00:1]/", "http host=[::ffff:7f00:1] path=/"))),
    ("http://[0:0:0:0:0:FFFF:7F00:1]/", Some(("http://[::ffff:7f00:1]/", "http host=[::ffff:7f00:1] path=/"))),
    ("http://[::127.0.0.1]/",           Some(("http://[::7f00:1]/", "http host=[::7f00:1] path=/"))),
    ("https://[2606:4700:0:0:0:0:0:1111]:8443/mcp",
                                        Some(("https://[2606:4700::1111]:8443/mcp", "https host=[2606:4700::1111] port=8443 path=/mcp"))),
    // Names: lower-cased, trailing dots kept, internationalised ones in punycode.
    ("HTTPS://MCP.Example.COM/Mcp",     Some(("https://mcp.example.com/Mcp", "https host=mcp.example.com path=/Mcp"))),
    ("http://localhost./",              Some(("http://localhost./", "http host=localhost. path=/"))),
    ("https://mcp.example.com./mcp",    Some(("https://mcp.example.com./mcp", "https host=mcp.example.com. path=/mcp"))),
    ("https://bücher.example/mcp",      Some(("https://xn--bcher-kva.example/mcp", "https host=xn--bcher-kva.example path=/mcp"))),
    ("https://BÜCHER.example/",         Some(("https://xn--bcher-kva.example/", "https host=xn--bcher-kva.example path=/"))),
    ("https://xn--bcher-kva.example/",  Some(("https://xn--bcher-kva.example/", "https host=xn--bcher-kva.example path=/"))),
    ("http://１２７.０.０.１/",           Some(("http://127.0.0.1/", "http host=127.0.0.1 path=/"))),
    ("https:///mcp",                    Some(("https://mcp/", "https host=mcp path=/"))),
    ("https://a.example\\p\\q",         Some(("https://a.example/p/q", "https host=a.example path=/p/q"))),
    ("  https://a.example/a b  ",       Some(("https://a.example/a%20b", "https host=a.example path=/a%20b"))),
    // User info, ports, query and fragment, including empty ones.
    ("https://user:pa%20ss@a.example/", Some(("https://user:pa%20ss@a.example/", "https host=a.example user=user pass=pa%20ss path=/"))),
    ("https://:pass@a.example/",        Some(("https://:pass@a.example/", "https host=a.example pass=pass path=/"))),
    ("https://user@a.example/",         Some(("https://user@a.example/", "https host=a.example user=user path=/"))),
    ("https://user:@a.example/",        Some(("https://user@a.example/", "https host=a.example user=user path=/"))),
    ("http://evil.com@127.0.0.1/",      Some(("http://evil.com@127.0.0.1/", "http host=127.0.0.1 user=evil.com path=/"))),
    ("https://a.example:443/",          Some(("https://a.example/", "https host=a.example path=/"))),
    ("http://a.example:80/",            Some(("http://a.example/", "http host=a.example path=/"))),
    ("https://a.example:80/",           Some(("https://a.example:80/", "https host=a.example port=80 path=/"))),
    ("https://a.example/p?q=1&r=%41#f", Some(("https://a.example/p?q=1&r=%41#f", "https host=a.example path=/p query=q=1&r=%41 fragment=f"))),
    ("https://a.example/p#f?g#h",       Some(("https://a.example/p#f?g#h", "https host=a.example path=/p fragment=f?g#h"))),
    ("https://a.example/p?#",           Some(("https://a.example/p?#", "https host=a.example path=/p query= fragment="))),
    // Other schemes.
    ("ftp://a.example/x",               Some(("ftp://a.example/x", "ftp host=a.example path=/x"))),
    ("ws://localhost:3000/",            Some(("ws://localhost:3000/", "ws host=localhost port=3000 path=/"))),
    ("javascript:alert(1)",             Some(("javascript:alert(1)", "javascript path=alert(1)"))),
    ("data:text/plain,hi",              Some(("data:text/plain,hi", "data path=text/plain,hi"))),
    ("file:///etc/passwd",              Some(("file:///etc/passwd", "file path=/etc/passwd"))),
    // Not URLs.
    ("",                                None),
    ("not a url",                       None),
    ("mcp.example.com/mcp",             None),
    ("https://",                        None),
    ("https://%41.example/",            Some(("https://a.example/", "https host=a.example path=/"))),
    ("https://exa mple.com/",           None), // Chromium alone escapes the space: web_url refuses
    ("https://a<b.example/",            None),
    ("https://a%20b.example/",          None),
    ("https://a%25b.example/",          None),
    ("https://256.0.0.1/",              None),
    ("https://1.2.3.4.5/",              None),
    ("http://[::1/",                    None),
    ("http://[1.2.3.4]/",               None),
    ("https://a.example:99999/",        None),
];

/// The message endpoint of the deprecated HTTP+SSE transport, resolved against the server URL.
#[rustfmt::skip]
const JOIN: &[(&str, &str, Option<&str>)] = &[
    ("http://127.0.0.1:3001/sse", "/messages?sessionId=a1",  Some("http://127.0.0.1:3001/messages?sessionId=a1")),
    ("http://127.0.0.1:3001/sse", "messages/?s=1",           Some("http://127.0.0.1:3001/messages/?s=1")),
    ("http://127.0.0.1:3001/a/sse", "../m",                  Some("http://127.0.0.1:3001/m")),
    ("http://127.0.0.1:3001/sse", "?sessionId=1",            Some("http://127.0.0.1:3001/sse?sessionId=1")),
    ("http://127.0.0.1:3001/sse", "",                        Some("http://127.0.0.1:3001/sse")),
    ("http://127.0.0.1:3001/sse", "https://evil.example/m",  Some("https://evil.example/m")),
    ("http://127.0.0.1:3001/sse", "//evil.example/m",        Some("http://evil.example/m")),
    ("http://127.0.0.1:3001/sse", "http://[::1",             None),
    ("not a url",                 "/m",                      None),
];

/// The parts of a URL as one line; empty parts are left out, present-but-empty ones are not.
fn describe(url: &WebUrl) -> String {
    let mut out = url.scheme.clone();
    let mut part = |name: &str, value: Option<&str>| {
        if let Some(value) = value {
            out.push_str(&format!(" {name}={value}"));
        }
    };
    part("host", url.host_str());
    part("user", Some(url.username.as_str()).filter(|u| !u.is_empty()));
    part("pass", Some(url.password.as_str()).filter(|p| !p.is_empty()));
    part("port", url.port.map(|p| p.to_string()).as_deref());
    part("path", Some(url.pathname.as_str()));
    part("query", url.query.as_deref());
    part("fragment", url.fragment.as_deref());
    out
}

fn report(failures: Vec<String>, rows: usize) {
    assert!(
        failures.is_empty(),
        "{} of {rows} rows failed:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

#[cfg_attr(not(target_arch = "wasm32"), test)]
#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
fn every_url_parses_into_its_parts() {
    let mut failures = Vec::new();
    for (input, expected) in PARSE {
        let got = web_url::parse(input.trim());
        let got = got.as_ref().map(|u| (u.as_str(), describe(u)));
        let expected = expected.map(|(href, parts)| (href, parts.to_owned()));
        if got != expected {
            failures.push(format!("{input:?}: expected {expected:?}, got {got:?}"));
        }
    }
    report(failures, PARSE.len());
}

#[cfg_attr(not(target_arch = "wasm32"), test)]
#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
fn relative_urls_resolve_against_their_base() {
    let mut failures = Vec::new();
    for (base, relative, expected) in JOIN {
        let got = web_url::join(base, relative);
        if got.as_ref().map(WebUrl::as_str) != *expected {
            failures.push(format!("{relative:?} on {base:?}: expected {expected:?}, got {got:?}"));
        }
    }
    report(failures, JOIN.len());
}

#[cfg_attr(not(target_arch = "wasm32"), test)]
#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
fn hosts_are_classified_from_the_normalised_name() {
    let host = |input: &str| web_url::parse(input).and_then(|u| u.host().map(|h| format!("{h:?}")));
    let v4 = Host::Ipv4(Ipv4Addr::new(127, 0, 0, 1));
    assert_eq!(host("http://0x7f.1/"), Some(format!("{v4:?}")));
    let v6 = Host::Ipv6(Ipv6Addr::new(0, 0, 0, 0, 0, 0xffff, 0x7f00, 1));
    assert_eq!(host("http://[::ffff:127.0.0.1]/"), Some(format!("{v6:?}")));
    assert_eq!(host("https://bücher.example/"), Some("Domain(\"xn--bcher-kva.example\")".into()));
    assert_eq!(host("file:///etc/passwd"), None);
}

#[cfg_attr(not(target_arch = "wasm32"), test)]
#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
fn urls_without_secrets_keep_only_where_they_point() {
    let redacted = |input: &str| web_url::parse(input).map(|u| u.without_secrets());
    assert_eq!(
        redacted("https://user:pw@example.com:8443/mcp?key=SECRET#frag").as_deref(),
        Some("https://example.com:8443/mcp")
    );
    assert_eq!(redacted("file:///etc/passwd").as_deref(), Some("file:///etc/passwd"));
    assert_eq!(
        redacted("mailto:someone@example.com").as_deref(),
        Some("mailto:someone@example.com")
    );
    let debug = format!("{:?}", web_url::parse("https://u:SECRET@a.example/?SECRET"));
    assert!(!debug.contains("SECRET"), "{debug}");
}
