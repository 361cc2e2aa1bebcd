//! The URL policy on any string: server URLs typed or imported, URLs servers hand over, links
//! they ask to open.

use gemipanel_core::url_policy::{self, Policy};
use gemipanel_core::web_url;
use proptest::collection::vec;
use proptest::prelude::*;
use proptest::sample::select;

use crate::json::{re, text};
use crate::support::check;

/// Hosts in every spelling the WHATWG parser normalises and the policy then sorts.
fn host() -> impl Strategy<Value = String> {
    let label = re("[a-z0-9-]{1,8}");
    prop_oneof![
        select(
            &[
                "a.example",
                "A.EXAMPLE.",
                "localhost",
                "api.localhost",
                "printer.local",
                "router",
                "127.0.0.1",
                "2130706433",
                "0177.0.0.1",
                "0x7f.1",
                "127.1",
                "10.0.0.1",
                "192.168.1.1",
                "100.64.0.1",
                "169.254.169.254",
                "0.0.0.0",
                "255.255.255.255",
                "224.0.0.1",
                "[::1]",
                "[::]",
                "[::ffff:127.0.0.1]",
                "[::ffff:a9fe:a9fe]",
                "[64:ff9b::a00:1]",
                "[2002:c0a8:101::]",
                "[fe80::1]",
                "[fd00::1]",
                "[fec0::1]",
                "[2001:db8::1]",
                "metadata.google.internal",
                "xn--bcher-kva.example",
                "bücher.example",
                "１２７.０.０.１",
                "ex%41mple.com",
                "a..b",
                "[::1",
                "",
            ][..]
        )
        .prop_map(str::to_owned),
        vec(label, 1..4).prop_map(|labels| labels.join(".")),
        (any::<[u8; 4]>()).prop_map(|[a, b, c, d]| format!("{a}.{b}.{c}.{d}")),
        (any::<[u16; 8]>()).prop_map(|parts| format!(
            "[{}]",
            parts.iter().map(|p| format!("{p:x}")).collect::<Vec<_>>().join(":")
        )),
        text(),
    ]
}

/// Strings shaped like URLs, some spelled oddly, and any text.
fn url_text() -> impl Strategy<Value = String> {
    let scheme = select(
        &[
            "https://",
            "http://",
            "HTTPS://",
            "https:",
            "https:/",
            "ftp://",
            "javascript:",
            "data:",
            "chrome-extension://",
            "",
        ][..],
    );
    let userinfo = select(&["", "user@", "user:pw@", ":@", "@"][..]);
    let port = prop_oneof![
        Just(String::new()),
        any::<u16>().prop_map(|p| format!(":{p}")),
        Just(":99999".to_owned())
    ];
    let path =
        select(&["", "/", "/mcp", "/a/../b", "/%2e%2e/", "?key=1", "#f", "/x?y#z", "\\x"][..]);
    prop_oneof![
        4 => (scheme, userinfo, host(), port, path, select(&["", " ", "\t", "\n"][..]))
            .prop_map(|(s, u, h, p, rest, pad)| format!("{pad}{s}{u}{h}{p}{rest}{pad}")),
        1 => text(),
    ]
}

const POLICIES: [Policy; 3] = [
    Policy::Configured { local_network: false },
    Policy::Configured { local_network: true },
    Policy::Learned,
];

#[test]
fn the_url_policy_takes_any_string_and_its_answer_is_stable() {
    check("url_policy", (url_text(), url_text()), |(input, other)| {
        for policy in POLICIES {
            match url_policy::check(&input, policy) {
                // The normalised URL is stored and checked again later: same answer, same URL.
                Ok(url) => {
                    let again = url_policy::check(url.as_str(), policy);
                    prop_assert_eq!(again.as_ref().map(|u| u.as_str()), Ok(url.as_str()));
                    let _ = (
                        url.origin(),
                        url.without_secrets(),
                        url_policy::needs_local_network(&url),
                    );
                    if let Some(host) = url.host() {
                        let _ = url_policy::classify_host(&host);
                    }
                }
                Err(refusal) => {
                    let _ =
                        (refusal.kind(), refusal.needs_local_network(), refusal.text().to_string());
                }
            }
        }
        let _ = url_policy::host_permission(&input);
        if let Ok(link) = url_policy::link(&input) {
            prop_assert_eq!(url_policy::link(&link.href), Ok(link));
        }
        if let Ok(link) = url_policy::app_link(&input) {
            prop_assert_eq!(url_policy::app_link(&link.href), Ok(link));
        }
        let _ = web_url::join(&input, &other);
        Ok(())
    });
}
