//! The URL rules, as a table of tricky inputs. Every row is checked and all failures are
//! reported together. The table runs natively and in Chromium (`cargo xtask test wasm`), where
//! the browser's parser normalises the hosts.

use gemipanel_core::url_policy::{check, Policy, RefusalKind};

#[cfg(target_arch = "wasm32")]
wasm_bindgen_test::wasm_bindgen_test_configure!(run_in_browser);

const USER: Policy = Policy::Configured { local_network: false };
const LAN: Policy = Policy::Configured { local_network: true };
const LEARNED: Policy = Policy::Learned;

/// `Ok(host)` is the normalised host the accepted URL must have.
type Expect = Result<&'static str, RefusalKind>;

use RefusalKind::*;

#[rustfmt::skip]
const CASES: &[(&str, Policy, Expect)] = &[
    // Plain remote servers.
    ("https://mcp.example.com/mcp",                 USER,    Ok("mcp.example.com")),
    ("HTTPS://MCP.Example.COM/mcp",                 USER,    Ok("mcp.example.com")),
    ("  https://mcp.example.com/mcp  ",             USER,    Ok("mcp.example.com")),
    ("https://mcp.example.com./mcp",                USER,    Ok("mcp.example.com.")),
    ("http://mcp.example.com/mcp",                  USER,    Err(Insecure)),
    ("http://mcp.example.com/mcp",                  LAN,     Err(Insecure)),
    ("https://93.184.215.14/mcp",                   USER,    Ok("93.184.215.14")),
    ("https://[2606:4700::1111]/mcp",               USER,    Ok("[2606:4700::1111]")),
    // Loopback: http allowed for configured servers, never for learned URLs.
    ("http://localhost:3000/mcp",                   USER,    Ok("localhost")),
    ("http://LOCALHOST:3000/mcp",                   USER,    Ok("localhost")),
    ("http://localhost.:3000/mcp",                  USER,    Ok("localhost.")),
    ("http://app.localhost:3000/mcp",               USER,    Ok("app.localhost")),
    ("http://127.0.0.1:8080/mcp",                   USER,    Ok("127.0.0.1")),
    ("http://127.9.9.9/mcp",                        USER,    Ok("127.9.9.9")),
    ("http://[::1]:8080/mcp",                       USER,    Ok("[::1]")),
    ("http://2130706433/mcp",                       USER,    Ok("127.0.0.1")),
    ("http://0177.0.0.1/mcp",                       USER,    Ok("127.0.0.1")),
    ("http://0x7f.1/mcp",                           USER,    Ok("127.0.0.1")),
    ("http://0x7F000001/mcp",                       USER,    Ok("127.0.0.1")),
    ("http://127.1/mcp",                            USER,    Ok("127.0.0.1")),
    ("http://127.0.0.1./mcp",                       USER,    Ok("127.0.0.1")),
    ("http://[::ffff:127.0.0.1]/mcp",               USER,    Ok("[::ffff:7f00:1]")),
    ("http://[::ffff:7f00:1]/mcp",                  USER,    Ok("[::ffff:7f00:1]")),
    ("http://[::127.0.0.1]/mcp",                    USER,    Ok("[::7f00:1]")),
    // Internationalised names are judged in their punycode form; full-width digits are digits.
    ("http://１２７.０.０.１/mcp",                   USER,    Ok("127.0.0.1")),
    ("https://１９２.１６８.１.５/mcp",               USER,    Err(NeedsLocalNetwork)),
    ("https://bücher.example/mcp",                  USER,    Ok("xn--bcher-kva.example")),
    ("https://bücher.local/mcp",                    USER,    Err(NeedsLocalNetwork)),
    ("https://user@bücher.example/mcp",             USER,    Err(UserInfo)),
    ("https://xn--bcher-kva.example/mcp",           USER,    Ok("xn--bcher-kva.example")),
    ("https://mcp.example.com/bücher",              USER,    Ok("mcp.example.com")),
    ("https://localhost/.well-known/oauth",         LEARNED, Err(NotPublic)),
    ("https://2130706433/token",                    LEARNED, Err(NotPublic)),
    ("https://0x7f.1/token",                        LEARNED, Err(NotPublic)),
    ("https://[::ffff:127.0.0.1]/token",            LEARNED, Err(NotPublic)),
    ("https://localhost./token",                    LEARNED, Err(NotPublic)),
    ("http://localhost/token",                      LEARNED, Err(Insecure)),
    // Private networks need the tick, and https.
    ("https://192.168.1.5/mcp",                     USER,    Err(NeedsLocalNetwork)),
    ("https://192.168.1.5/mcp",                     LAN,     Ok("192.168.1.5")),
    ("http://192.168.1.5/mcp",                      LAN,     Err(Insecure)),
    ("http://192.168.1.5/mcp",                      USER,    Err(Insecure)),
    ("https://10.0.0.7/mcp",                        USER,    Err(NeedsLocalNetwork)),
    ("https://012.0.0.7/mcp",                       USER,    Err(NeedsLocalNetwork)),
    ("https://167772167/mcp",                       USER,    Err(NeedsLocalNetwork)),
    ("https://172.16.0.1/mcp",                      USER,    Err(NeedsLocalNetwork)),
    ("https://172.31.255.255/mcp",                  USER,    Err(NeedsLocalNetwork)),
    ("https://172.32.0.1/mcp",                      USER,    Ok("172.32.0.1")),
    ("https://100.64.0.1/mcp",                      USER,    Err(NeedsLocalNetwork)),
    ("https://100.127.255.254/mcp",                 USER,    Err(NeedsLocalNetwork)),
    ("https://100.128.0.1/mcp",                     USER,    Ok("100.128.0.1")),
    ("https://[fd12:3456::1]/mcp",                  USER,    Err(NeedsLocalNetwork)),
    ("https://[fd12:3456::1]/mcp",                  LAN,     Ok("[fd12:3456::1]")),
    ("https://[::ffff:192.168.0.1]/mcp",            USER,    Err(NeedsLocalNetwork)),
    ("https://[::ffff:c0a8:1]/mcp",                 USER,    Err(NeedsLocalNetwork)),
    ("https://[64:ff9b::c0a8:1]/mcp",               USER,    Err(NeedsLocalNetwork)),
    ("https://[2002:c0a8:1::1]/mcp",                USER,    Err(NeedsLocalNetwork)),
    ("https://169.254.10.10/mcp",                   USER,    Err(NeedsLocalNetwork)),
    ("https://[fe80::1]/mcp",                       USER,    Err(NeedsLocalNetwork)),
    ("https://nas.local/mcp",                       USER,    Err(NeedsLocalNetwork)),
    ("https://NAS.LOCAL./mcp",                      USER,    Err(NeedsLocalNetwork)),
    ("https://nas.local/mcp",                       LAN,     Ok("nas.local")),
    ("https://printer.home.arpa/mcp",               USER,    Err(NeedsLocalNetwork)),
    ("https://intranet/mcp",                        USER,    Err(NeedsLocalNetwork)),
    ("https://10.1.2.3/token",                      LEARNED, Err(NotPublic)),
    ("https://[::ffff:10.1.2.3]/token",             LEARNED, Err(NotPublic)),
    ("https://[fd00::1]/register",                  LEARNED, Err(NotPublic)),
    ("https://[fe80::1]/register",                  LEARNED, Err(NotPublic)),
    ("https://nas.local/authorize",                 LEARNED, Err(NotPublic)),
    ("https://100.64.1.1/authorize",                LEARNED, Err(NotPublic)),
    // Cloud metadata, in every spelling, under every policy.
    ("http://169.254.169.254/latest/meta-data",     USER,    Err(Metadata)),
    ("https://169.254.169.254/latest/meta-data",    LAN,     Err(Metadata)),
    ("https://169.254.169.254/",                    LEARNED, Err(Metadata)),
    ("https://2852039166/",                         LEARNED, Err(Metadata)),
    ("https://0xA9FEA9FE/",                         LEARNED, Err(Metadata)),
    ("https://0251.0376.0251.0376/",                LEARNED, Err(Metadata)),
    ("https://169.254.43518/",                      LEARNED, Err(Metadata)),
    ("https://[::ffff:169.254.169.254]/",           LEARNED, Err(Metadata)),
    ("https://[::ffff:a9fe:a9fe]/",                 LAN,     Err(Metadata)),
    ("https://[fd00:ec2::254]/",                    LAN,     Err(Metadata)),
    ("https://metadata.google.internal/computeMetadata/v1/", LAN, Err(Metadata)),
    ("https://METADATA.GOOGLE.INTERNAL./",          LEARNED, Err(Metadata)),
    ("https://169.254.170.2/v2/credentials",        LAN,     Err(Metadata)),
    ("https://100.100.100.200/latest/meta-data",    LAN,     Err(Metadata)),
    // Addresses nothing lives at.
    ("http://0.0.0.0:8080/mcp",                     USER,    Err(Unroutable)),
    ("http://0/mcp",                                USER,    Err(Unroutable)),
    ("https://[::]/mcp",                            LAN,     Err(Unroutable)),
    ("https://255.255.255.255/mcp",                 LAN,     Err(Unroutable)),
    ("https://224.0.0.1/mcp",                       LAN,     Err(Unroutable)),
    ("https://[ff02::1]/mcp",                       LAN,     Err(Unroutable)),
    // Learned URLs that are fine.
    ("https://auth.example.com/authorize?x=1",      LEARNED, Ok("auth.example.com")),
    ("https://8.8.8.8/token",                       LEARNED, Ok("8.8.8.8")),
    // Userinfo, fragments, schemes, empty and broken hosts.
    ("https://user:pass@mcp.example.com/mcp",       USER,    Err(UserInfo)),
    ("https://user@mcp.example.com/mcp",            USER,    Err(UserInfo)),
    ("https://:pass@mcp.example.com/mcp",           USER,    Err(UserInfo)),
    ("http://evil.com@127.0.0.1/mcp",               USER,    Err(UserInfo)),
    ("https://user:pass@auth.example.com/token",    LEARNED, Err(UserInfo)),
    ("https://mcp.example.com/mcp#frag",            USER,    Err(Fragment)),
    ("https://auth.example.com/authorize#x",        LEARNED, Err(Fragment)),
    ("ftp://mcp.example.com/",                      USER,    Err(Scheme)),
    ("ws://localhost:3000/",                        USER,    Err(Scheme)),
    ("javascript:alert(1)",                         USER,    Err(Scheme)),
    ("file:///etc/passwd",                          USER,    Err(Scheme)),
    ("data:text/plain,hi",                          LEARNED, Err(Scheme)),
    ("chrome-extension://abc/page.html",            LEARNED, Err(Scheme)),
    ("https://",                                    USER,    Err(Unparsable)),
    ("https:///mcp",                                USER,    Err(NeedsLocalNetwork)), // WHATWG: host "mcp"
    ("mcp.example.com/mcp",                         USER,    Err(Unparsable)),
    ("",                                            USER,    Err(Unparsable)),
    ("https://256.0.0.1/",                          USER,    Err(Unparsable)),
    ("https://1.2.3.4.5/",                          USER,    Err(Unparsable)),
    ("https://exa mple.com/",                       USER,    Err(Unparsable)),
];

#[cfg_attr(not(target_arch = "wasm32"), test)]
#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
fn every_row_of_the_table_gets_its_verdict() {
    let mut failures = Vec::new();
    for (input, policy, expected) in CASES {
        let got = check(input, *policy);
        let ok = match (&got, expected) {
            (Ok(url), Ok(host)) => url.host_str() == Some(*host),
            (Err(refusal), Err(kind)) => refusal.kind() == *kind,
            _ => false,
        };
        if !ok {
            failures
                .push(format!("{input:?} under {policy:?}: expected {expected:?}, got {got:?}"));
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} rows failed:\n{}",
        failures.len(),
        CASES.len(),
        failures.join("\n")
    );
}

#[cfg_attr(not(target_arch = "wasm32"), test)]
#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
fn the_table_covers_each_refusal_and_each_policy() {
    for kind in [
        Unparsable,
        Scheme,
        UserInfo,
        Fragment,
        Insecure,
        NeedsLocalNetwork,
        NotPublic,
        Metadata,
        Unroutable,
    ] {
        assert!(CASES.iter().any(|(_, _, e)| *e == Err(kind)), "no row refuses with {kind:?}");
    }
    for policy in [USER, LAN, LEARNED] {
        assert!(CASES.iter().any(|(_, p, e)| *p == policy && e.is_ok()));
    }
}

#[cfg_attr(not(target_arch = "wasm32"), test)]
#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
fn refusals_read_as_sentences_that_name_the_host_but_not_the_secret() {
    let cases = [
        (
            "http://mcp.example.com/mcp",
            USER,
            "http is only allowed for loopback addresses; use https",
        ),
        (
            "https://192.168.1.5/mcp?token=hunter2",
            USER,
            "192.168.1.5 is a private network address: tick “local network server” to allow it",
        ),
        (
            "https://alice:hunter2@mcp.example.com/",
            USER,
            "the URL contains a user name or password; remove it and put credentials in a header",
        ),
        (
            "https://bücher.local:8443/mcp?token=hunter2",
            USER,
            "xn--bcher-kva.local is a private network address: tick “local network server” to \
             allow it",
        ),
        ("https://exa mple.com/?token=hunter2", USER, "this is not a valid URL"),
    ];
    for (input, policy, message) in cases {
        let refusal = check(input, policy).unwrap_err();
        assert_eq!(refusal.to_string(), message);
        assert!(!format!("{refusal:?}").contains("hunter2"));
    }
    assert!(check("https://192.168.1.5/", USER).unwrap_err().needs_local_network());
    assert!(!check("http://192.168.1.5/", LAN).unwrap_err().needs_local_network());
}

#[test]
fn links_a_server_asks_to_open_are_https_or_local_and_show_both_forms_of_a_name() {
    use gemipanel_core::url_policy::link;
    let ok = link("https://EXAMPLE.com:8443/login?x=1").unwrap();
    assert_eq!((ok.host.as_str(), ok.host_unicode.as_deref()), ("example.com:8443", None));
    assert_eq!(ok.href, "https://example.com:8443/login?x=1");
    // A Cyrillic "а": the browser reaches xn--pple-43d.com; the person also sees how it looks.
    let idn = link("https://\u{430}pple.com/").unwrap();
    assert_eq!(idn.host, "xn--pple-43d.com");
    assert_eq!(idn.host_unicode.as_deref(), Some("\u{430}pple.com"));
    assert!(link("http://127.0.0.1:9/cb").is_ok());
    assert!(link("http://localhost/cb").is_ok());
    for refused in [
        "http://example.com/",
        "javascript:alert(1)",
        "data:text/html,hi",
        "file:///etc/passwd",
        "chrome-extension://abcdefghijklmnopabcdefghijklmnop/popup.html",
        "ms-officecmd:open",
        "not a url",
    ] {
        let error = link(refused).expect_err(refused);
        assert!(error.key.starts_with("errLink"), "{refused}: {error}");
    }
}

#[test]
fn links_an_app_asks_to_open_are_http_or_https_to_any_host_without_credentials() {
    use gemipanel_core::url_policy::{app_link, link};
    // The person confirms and sees the host first, so plain http is fine anywhere.
    for (input, href, host) in [
        ("http://example.com/a?b=1#c", "http://example.com/a?b=1#c", "example.com"),
        ("https://EXAMPLE.com:8443/", "https://example.com:8443/", "example.com:8443"),
        ("http://192.168.1.5:8080/", "http://192.168.1.5:8080/", "192.168.1.5:8080"),
        ("http://localhost/cb", "http://localhost/cb", "localhost"),
    ] {
        let ok = app_link(input).expect(input);
        assert_eq!((ok.href.as_str(), ok.host.as_str()), (href, host));
    }
    let idn = app_link("http://\u{430}pple.com/").unwrap();
    assert_eq!(idn.host_unicode.as_deref(), Some("\u{430}pple.com"));
    for refused in [
        "javascript:alert(1)",
        "JavaScript:alert(1)",
        "data:text/html,hi",
        "file:///etc/passwd",
        "blob:https://example.com/0b7e4f5c-5a4c-4c1e-9a55-1c2f0e6a8b3d",
        "chrome://settings",
        "chrome-extension://abcdefghijklmnopabcdefghijklmnop/popup.html",
        "about:blank",
        "ftp://example.com/",
        "ws://example.com/",
        "ms-officecmd:open",
        "https://user:pass@example.com/",
        "http://user@example.com/",
        "https://:pass@example.com/",
        "not a url",
        "",
    ] {
        let error = app_link(refused).expect_err(refused);
        assert!(error.key.starts_with("errAppLink"), "{refused}: {error}");
        // Never the URL itself, whose user info may be a secret.
        assert!(!error.to_string().contains("example.com"), "{refused}: {error}");
    }
    // A server's URL-mode elicitation keeps its own rule: http only to this computer.
    assert!(link("http://example.com/").is_err());
}
