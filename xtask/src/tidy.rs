//! Tidy checks: rules of the architecture that a grep can enforce, run as ordinary tests.
//! Each failure names the file and line and what to do instead.

#![cfg(test)]

use std::path::{Path, PathBuf};

use crate::util::root;

/// Every `.rs` file under `dir`, in a stable order.
pub(crate) fn rust_files(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let Ok(entries) = std::fs::read_dir(dir) else { return out };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            out.extend(rust_files(&path));
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
    out.sort();
    out
}

/// `path:line: text` for every line of the crate's sources that contains `needle`.
fn find(crate_dir: &str, needle: &str) -> Vec<String> {
    let mut hits = Vec::new();
    for file in rust_files(&root().join(crate_dir)) {
        let text = std::fs::read_to_string(&file).unwrap_or_default();
        for (n, line) in text.lines().enumerate() {
            if line.contains(needle) {
                let shown = file.strip_prefix(root()).unwrap_or(&file).display().to_string();
                hits.push(format!("{shown}:{}: {}", n + 1, line.trim()));
            }
        }
    }
    hits
}

/// The allowed exceptions: in wasm, `web_url` parses with the browser's `URL` (computation, not
/// I/O), and core's wasm unit tests run in the browser.
const CORE_WASM_EXCEPTIONS: [(&str, &str); 2] = [
    (
        "[target.'cfg(target_arch = \"wasm32\")'.dependencies]",
        "web-sys = { workspace = true, features = [\"Url\"] }",
    ),
    (
        "[target.'cfg(target_arch = \"wasm32\")'.dev-dependencies]",
        "wasm-bindgen-test.workspace = true",
    ),
];

#[test]
fn core_depends_on_no_browser_or_runtime_crate() {
    let manifest = std::fs::read_to_string(root().join("core/Cargo.toml")).unwrap();
    let mut section = "";
    for line in manifest.lines().map(str::trim) {
        if line.starts_with('[') {
            section = line;
            continue;
        }
        if CORE_WASM_EXCEPTIONS.contains(&(section, line)) {
            continue;
        }
        for banned in ["wasm-bindgen", "web-sys", "js-sys", "gloo", "yew", "tokio", "reqwest"] {
            assert!(
                !line.starts_with(banned),
                "core/Cargo.toml depends on {banned} ({line} in {section}): core must stay \
                 pure; put browser code in gemipanel-browser and I/O in the drivers"
            );
        }
    }
}

#[test]
fn only_the_browser_crate_binds_chrome_apis() {
    for dir in ["core", "background", "sidepanel", "popup"] {
        let hits = find(dir, "js_namespace = [\"chrome\"");
        assert!(
            hits.is_empty(),
            "chrome.* bindings belong in browser/src/chrome.rs:\n{}",
            hits.join("\n")
        );
    }
}

#[test]
fn secrets_are_not_logged() {
    for dir in ["core", "browser", "background", "sidepanel", "popup"] {
        let hits: Vec<_> = find(dir, "console::")
            .into_iter()
            .filter(|line| line.contains("expose(") || line.contains("api_key"))
            .collect();
        assert!(
            hits.is_empty(),
            "a log line touches a secret; log what failed, not the value:\n{}",
            hits.join("\n")
        );
    }
}

/// Every permission the manifest asks for, required or optional, is justified in one line
/// (`store::PERMISSIONS`, which the store package checks against the shipped code) and that
/// line is in PRIVACY.md, where the store's reviewers and the people installing read it.
/// Required, each with its reason:
///
/// - `storage`, `unlimitedStorage`: settings, saved chats with their attachments, sign-ins;
/// - `sidePanel`: the chat's place;
/// - `identity`: signing in to MCP servers (`launchWebAuthFlow`);
/// - `activeTab`, `scripting`: reading the tab the person invoked GemiPanel on;
/// - `contextMenus`: the right-click items;
/// - `declarativeNetRequestWithHostAccess`: sign-in's POSTs without `Origin`.
///
/// Optional, asked in a click: `tabs` (the page chip follows every tab) and `nativeMessaging`
/// (local servers, asked when the person first adds or imports one).
#[test]
fn manifest_permissions_are_the_ones_in_use() {
    let manifest: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(root().join("manifest.json")).unwrap())
            .unwrap();
    let list = |name: &str| -> Vec<&str> {
        manifest[name].as_array().into_iter().flatten().filter_map(|p| p.as_str()).collect()
    };
    assert_eq!(
        list("permissions"),
        [
            "storage",
            "unlimitedStorage",
            "sidePanel",
            "identity",
            "activeTab",
            "scripting",
            "contextMenus",
            "declarativeNetRequestWithHostAccess"
        ]
    );
    assert_eq!(list("optional_permissions"), ["tabs", "nativeMessaging"]);
    let privacy = std::fs::read_to_string(root().join("PRIVACY.md")).unwrap();
    for name in list("permissions").into_iter().chain(list("optional_permissions")) {
        let justified = crate::store::PERMISSIONS.iter().find(|p| p.name == name);
        let justified = justified.unwrap_or_else(|| {
            panic!("`{name}` has no justification in xtask/src/store.rs PERMISSIONS")
        });
        assert!(
            privacy.contains(&format!("`{name}`: {}", justified.why)),
            "PRIVACY.md must justify `{name}` with the line in xtask/src/store.rs"
        );
    }
    for (field, why) in crate::store::HOSTS {
        assert!(privacy.contains(&format!("`{field}`: {why}")), "PRIVACY.md must justify {field}");
    }
    // The page beside the chat: `activeTab` and `scripting` read the tab the person invoked
    // GemiPanel on; `tabs` (an install warning) is optional, asked for in a click.
    let page = std::fs::read_to_string(root().join("browser/js/page.js")).unwrap();
    assert!(page.contains("chrome.scripting.executeScript") && page.contains("captureVisibleTab"));
    assert!(page.contains("permissions: ['tabs']"));
    // nativeMessaging: the worker reaches the bridge for local servers, once it is granted;
    // the popup asks for it when a local server is saved, tested or imported.
    let chrome = std::fs::read_to_string(root().join("browser/src/chrome.rs")).unwrap();
    let worker = std::fs::read_to_string(root().join("background/src/local.rs")).unwrap();
    assert!(chrome.contains("js_name = connectNative") && worker.contains("connect_native("));
    assert!(worker.contains("can_connect_native()"), "the worker checks before connecting");
    let popup = std::fs::read_to_string(root().join("popup/src/permissions.rs")).unwrap();
    assert!(popup.contains("NATIVE_MESSAGING"));
    assert!(chrome.contains("js_namespace = [\"chrome\", \"contextMenus\"]"));
    // declarativeNetRequestWithHostAccess: sign-in's POSTs leave without `Origin`.
    let auth = std::fs::read_to_string(root().join("background/src/auth.rs")).unwrap();
    assert!(
        chrome.contains("js_name = updateSessionRules") && auth.contains("remove_origin_header(")
    );
    let hosts: Vec<&str> = manifest["host_permissions"]
        .as_array()
        .expect("manifest.json lists host permissions")
        .iter()
        .filter_map(|p| p.as_str())
        .collect();
    assert_eq!(
        hosts,
        gemipanel_core::url_policy::MANIFEST_HOST_PERMISSIONS,
        "core::url_policy::host_permission asks for exactly what the manifest does not grant"
    );
    assert_eq!(manifest["manifest_version"], 3);
    let csp = manifest["content_security_policy"]["extension_pages"].as_str().unwrap_or_default();
    assert!(csp.contains("'wasm-unsafe-eval'"), "wasm does not compile without 'wasm-unsafe-eval'");
}

/// Every `message("key", …)` and `counted_message("key", …)` of the pages names a key of
/// `_locales/en` (a missing one shows as an empty string).
#[test]
fn every_message_key_used_exists() {
    let en: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(root().join("static/_locales/en/messages.json")).unwrap(),
    )
    .unwrap();
    let mut missing = Vec::new();
    for dir in ["core", "browser", "background", "sidepanel", "popup"] {
        for file in rust_files(&root().join(dir).join("src")) {
            let whole = std::fs::read_to_string(&file).unwrap();
            // Unit tests (at the end of a file) may name keys that do not exist on purpose.
            let text = whole.split("#[cfg(test)]").next().unwrap_or_default();
            // Core's texts (`Text::new`) are worded by the pages with the same files.
            for call in ["message(\"", "counted_message(\"", "Text::new(\""] {
                for (at, _) in text.match_indices(call) {
                    let rest = &text[at + call.len()..];
                    let key = &rest[..rest.find('"').unwrap_or(0)];
                    let counted = call.starts_with("counted");
                    let present =
                        en.get(key).is_some() || (counted && en.get(format!("{key}One")).is_some());
                    if !key.is_empty() && !present {
                        missing.push(format!("{}: {key}", file.display()));
                    }
                }
            }
        }
    }
    assert!(missing.is_empty(), "message keys missing from _locales/en:\n{}", missing.join("\n"));
}

#[test]
fn every_locale_has_the_same_keys() {
    let keys = |lang: &str| -> Vec<String> {
        let path = root().join(format!("static/_locales/{lang}/messages.json"));
        let json: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
        let mut keys: Vec<String> = json.as_object().unwrap().keys().cloned().collect();
        keys.sort();
        keys
    };
    let (en, ja) = (keys("en"), keys("ja"));
    let missing_ja: Vec<_> = en.iter().filter(|k| !ja.contains(k)).collect();
    let missing_en: Vec<_> = ja.iter().filter(|k| !en.contains(k)).collect();
    assert!(missing_ja.is_empty(), "keys missing from _locales/ja: {missing_ja:?}");
    assert!(missing_en.is_empty(), "keys missing from _locales/en: {missing_en:?}");
}

/// A message's placeholders are the same in every language: a Japanese sentence that lost a
/// `$A$` would drop the server's name.
#[test]
fn every_locale_uses_the_same_placeholders() {
    let read = |lang: &str| -> serde_json::Value {
        let path = root().join(format!("static/_locales/{lang}/messages.json"));
        serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap()
    };
    let placeholders = |entry: &serde_json::Value| -> Vec<String> {
        let text = entry["message"].as_str().unwrap_or_default();
        let mut names: Vec<String> = text
            .split('$')
            .skip(1)
            .step_by(2)
            .filter(|n| !n.is_empty() && n.chars().all(|c| c.is_ascii_alphanumeric() || c == '_'))
            .map(|n| n.to_ascii_lowercase())
            .collect();
        names.sort();
        names.dedup();
        names
    };
    let (en, ja) = (read("en"), read("ja"));
    let mut different = Vec::new();
    for (key, entry) in en.as_object().unwrap() {
        if let Some(other) = ja.get(key) {
            if placeholders(entry) != placeholders(other) {
                different.push(key.clone());
            }
        }
    }
    assert!(different.is_empty(), "placeholders differ between en and ja: {different:?}");
}

/// The names the sandbox page's JavaScript uses for its control messages
/// (`core::apps::frame_wire`): `type === 'x'`, `type: 'x'` and the `'gemipanel/…'` markers.
fn sandbox_names_in(file: &str) -> std::collections::BTreeSet<String> {
    let text = std::fs::read_to_string(root().join(file)).unwrap();
    let mut names = std::collections::BTreeSet::new();
    for pattern in ["type === '", "type !== '", "type: '", "'gemipanel/"] {
        for (at, _) in text.match_indices(pattern) {
            let start = at + pattern.len();
            let rest = &text[start..];
            let name = &rest[..rest.find('\'').unwrap_or(0)];
            let name =
                if pattern == "'gemipanel/" { format!("gemipanel/{name}") } else { name.into() };
            names.insert(name);
        }
    }
    names
}

#[test]
fn sandbox_messages_match_core() {
    use gemipanel_core::apps::frame_wire::{FromSandbox, ToSandbox, CONNECT, DOCUMENT};
    let message = serde_json::Value::Null;
    let to = [
        ToSandbox::Load { allow: String::new() },
        ToSandbox::Post { message: &message },
        ToSandbox::Unload,
        ToSandbox::Ping,
    ];
    let from = [
        FromSandbox::App { message: message.clone(), activated: false },
        FromSandbox::Loaded,
        FromSandbox::Left,
        FromSandbox::Idle,
        FromSandbox::Pong,
    ];
    // Exhaustive: a variant added in core but not listed above does not compile.
    for m in &to {
        match m {
            ToSandbox::Load { .. }
            | ToSandbox::Post { .. }
            | ToSandbox::Unload
            | ToSandbox::Ping => {}
        }
    }
    for m in &from {
        match m {
            FromSandbox::App { .. }
            | FromSandbox::Loaded
            | FromSandbox::Left
            | FromSandbox::Idle
            | FromSandbox::Pong => {}
        }
    }
    let tag = |v: serde_json::Value| v["type"].as_str().unwrap().to_owned();
    let mut core: std::collections::BTreeSet<String> = to
        .iter()
        .map(|m| tag(serde_json::to_value(m).unwrap()))
        .chain(from.iter().map(|m| tag(serde_json::to_value(m).unwrap())))
        .collect();
    core.insert(CONNECT.into());
    core.insert(DOCUMENT.into());
    let mut javascript = sandbox_names_in("static/sandbox.js");
    javascript.extend(sandbox_names_in("browser/js/app_frame.js"));
    assert_eq!(
        javascript, core,
        "static/sandbox.js and browser/js/app_frame.js must use exactly the message names of \
         core::apps::frame_wire (ToSandbox, FromSandbox, CONNECT, DOCUMENT)"
    );
}
