//! `cargo xtask dist --store`: the Chrome Web Store package, `target/store/gemipanel-<version>.zip`.
//!
//! Made from the `dist/` just built: the manifest without the development `key` (the store
//! refuses one, and gives the item its own) and with the workspace's version, and only the files
//! the extension loads. Before it is written, the package is checked as the store checks an
//! upload, so a mistake shows here with what to change rather than after the upload:
//! manifest fields and their lengths, icons of every size, complete locales, no remote code,
//! and every permission backed by code that uses it ([`PERMISSIONS`]).
//!
//! The extension id: the store item's public key is the manifest's `key` (see
//! `store/README.md`), so the store build and a development build share one id, and with it the
//! bridge's `allowed_origins` and the sign-in redirect `https://<id>.chromiumapp.org/`.

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::util::{self, Result};

/// Every permission the manifest may ask for: why a person should grant it (the store's
/// "permission justification", one line each, also in PRIVACY.md) and a piece of the shipped
/// code that shows it is used. A permission missing here fails the package: say why first.
pub const PERMISSIONS: [Permission; 10] = [
    Permission {
        name: "storage",
        why: "Keeps your settings, your saved chats and your sign-ins on this computer.",
        used_by: "chrome.storage",
    },
    Permission {
        name: "unlimitedStorage",
        why: "Saved chats keep their attachments and apps, which outgrow the 10 MB Chrome allows \
              otherwise.",
        used_by: "chrome.storage",
    },
    Permission {
        name: "sidePanel",
        why: "The chat lives in Chrome's side panel, beside the page you are reading.",
        used_by: "chrome.sidePanel",
    },
    Permission {
        name: "identity",
        why: "Signs you in to the MCP servers you add that ask for it (OAuth), in Chrome's own \
              sign-in window.",
        used_by: "launchWebAuthFlow",
    },
    Permission {
        name: "activeTab",
        why: "Reads the page you invoke GemiPanel on (its shortcut or the right-click menu), only \
              when you send it or a tool asks for it.",
        used_by: "executeScript",
    },
    Permission {
        name: "scripting",
        why: "Reads the text or selection of a page you chose to send, inside that page.",
        used_by: "chrome.scripting",
    },
    Permission {
        name: "contextMenus",
        why: "Adds GemiPanel's items to the right-click menu: ask about a page, a selection, a \
              link or an image.",
        used_by: "chrome.contextMenus",
    },
    Permission {
        name: "declarativeNetRequestWithHostAccess",
        why: "Leaves the Origin header out of GemiPanel's own sign-in requests to authorization \
              servers that refuse a browser's origin; it changes no other request.",
        used_by: "updateSessionRules",
    },
    Permission {
        name: "tabs",
        why: "Optional, asked when you first turn on the page chip: lets it follow the tab you \
              are on.",
        used_by: "permissions: ['tabs']",
    },
    Permission {
        name: "nativeMessaging",
        why: "Optional, asked when you first add or import a local MCP server: GemiPanel starts \
              it through its companion program on your computer.",
        used_by: "connectNative",
    },
];

/// Host access, justified like the permissions.
pub const HOSTS: [(&str, &str); 2] = [
    (
        "host_permissions",
        "MCP servers running on this computer (127.0.0.1, localhost, [::1]) are reached without \
         a prompt.",
    ),
    (
        "optional_host_permissions",
        "Every other MCP server or authorization server is asked for, site by site, when you add \
         it or sign in.",
    ),
];

pub struct Permission {
    pub name: &'static str,
    pub why: &'static str,
    /// Text found in the shipped code where the permission is used.
    pub used_by: &'static str,
}

/// The store's limits on manifest fields, in characters after a locale's message is put in.
/// https://developer.chrome.com/docs/extensions/reference/manifest/name (75, short name 12),
/// https://developer.chrome.com/docs/extensions/reference/manifest/description (132).
const FIELD_LIMITS: [(&str, usize); 3] = [("name", 75), ("short_name", 12), ("description", 132)];

/// The icon sizes a listing and Chrome's surfaces use (toolbar, menus, the extensions page and
/// the store, which requires 128): https://developer.chrome.com/docs/extensions/reference/manifest/icons
const ICON_SIZES: [u32; 4] = [16, 32, 48, 128];

/// Shipped although nothing loads them: licences the files beside them require.
const SHIPPED_UNLOADED: [&str; 1] = ["vendor/readability/LICENSE.md"];

/// `dist --store`: builds dist/, then the package.
pub fn run() -> Result {
    crate::dist::run()?;
    package_built().map(|_| ())
}

/// The package of the dist/ already built, in target/store/.
pub fn package_built() -> Result<PathBuf> {
    let zip = package(&util::dist_dir(), &util::target_dir().join("store"))?;
    println!("store package ready: {}", zip.display());
    println!("the store's permission justifications (also in PRIVACY.md):");
    for permission in &PERMISSIONS {
        println!("  {}: {}", permission.name, permission.why);
    }
    for (field, why) in HOSTS {
        println!("  {field}: {why}");
    }
    Ok(zip)
}

/// Checks `dist` and writes the package into `out`; returns its path.
pub fn package(dist: &Path, out: &Path) -> Result<PathBuf> {
    let version = workspace_version()?;
    let manifest = read_json(&dist.join("manifest.json"))?;
    let manifest = store_manifest(manifest, &version);
    let files = all_files(dist)?;
    let loaded = loaded_files(dist, &files)?;
    let mut problems = manifest_problems(&manifest, &version);
    problems.extend(locale_problems(dist, &manifest)?);
    problems.extend(icon_problems(dist, &manifest));
    problems.extend(remote_code_problems(dist, &manifest, &loaded)?);
    problems.extend(permission_problems(dist, &manifest, &loaded)?);
    if !problems.is_empty() {
        return Err(format!(
            "the store package was not written; the Chrome Web Store would refuse it:\n  - {}",
            problems.join("\n  - ")
        ));
    }
    let left_out: Vec<&String> = files.iter().filter(|f| !loaded.contains(*f)).collect();
    if !left_out.is_empty() {
        println!("left out of the store package (nothing loads them): {left_out:?}");
    }
    fs::create_dir_all(out).map_err(|e| format!("creating {}: {e}", out.display()))?;
    let path = out.join(format!("gemipanel-{version}.zip"));
    write_zip(&path, dist, &manifest, &loaded)?;
    Ok(path)
}

/// `version` of `[workspace.package]` in the workspace's Cargo.toml.
pub fn workspace_version() -> Result<String> {
    let text = fs::read_to_string(util::root().join("Cargo.toml"))
        .map_err(|e| format!("reading Cargo.toml: {e}"))?;
    version_in(&text).ok_or_else(|| "Cargo.toml has no [workspace.package] version".into())
}

fn version_in(cargo_toml: &str) -> Option<String> {
    let mut section = "";
    for line in cargo_toml.lines().map(str::trim) {
        if line.starts_with('[') {
            section = line;
        } else if section == "[workspace.package]" {
            if let Some(value) = line.strip_prefix("version") {
                let value = value.trim_start().strip_prefix('=')?.trim();
                return Some(value.trim_matches('"').to_owned());
            }
        }
    }
    None
}

/// The manifest as the store gets it: no `key`, the workspace's version.
pub fn store_manifest(mut manifest: Value, version: &str) -> Value {
    if let Some(object) = manifest.as_object_mut() {
        object.remove("key");
        object.insert("version".into(), Value::String(version.to_owned()));
    }
    manifest
}

fn read_json(path: &Path) -> Result<Value> {
    let text = fs::read_to_string(path).map_err(|e| format!("reading {}: {e}", path.display()))?;
    serde_json::from_str(&text).map_err(|e| format!("{}: {e}", path.display()))
}

/// Every file under `dir`, as `/`-separated paths relative to it, sorted.
fn all_files(dir: &Path) -> Result<BTreeSet<String>> {
    fn walk(root: &Path, dir: &Path, out: &mut BTreeSet<String>) -> Result {
        for entry in fs::read_dir(dir).map_err(|e| format!("reading {}: {e}", dir.display()))? {
            let path = entry.map_err(|e| e.to_string())?.path();
            if path.is_dir() {
                walk(root, &path, out)?;
            } else if let Ok(relative) = path.strip_prefix(root) {
                let parts: Vec<_> =
                    relative.components().map(|c| c.as_os_str().to_string_lossy()).collect();
                out.insert(parts.join("/"));
            }
        }
        Ok(())
    }
    let mut files = BTreeSet::new();
    walk(dir, dir, &mut files)?;
    Ok(files)
}

/// The files the extension loads: from the manifest and every locale, each file that a loaded
/// file names (by its path from the root or from the naming file's folder; wasm names the
/// files it opens in its data), plus the licences the shipped files need.
fn loaded_files(dist: &Path, files: &BTreeSet<String>) -> Result<BTreeSet<String>> {
    let mut loaded: BTreeSet<String> = files
        .iter()
        .filter(|f| *f == "manifest.json" || f.starts_with("_locales/"))
        .cloned()
        .collect();
    loaded.extend(SHIPPED_UNLOADED.iter().filter(|f| files.contains(**f)).map(|f| f.to_string()));
    let mut queue: Vec<String> = loaded.iter().cloned().collect();
    while let Some(file) = queue.pop() {
        let bytes = fs::read(dist.join(&file)).map_err(|e| format!("reading {file}: {e}"))?;
        let folder = file.rsplit_once('/').map_or("", |(folder, _)| folder);
        let unreached: Vec<&String> = files.iter().filter(|c| !loaded.contains(*c)).collect();
        for candidate in unreached {
            let relative = candidate
                .strip_prefix(folder)
                .and_then(|rest| rest.strip_prefix('/'))
                .filter(|_| !folder.is_empty());
            let named = contains(&bytes, candidate.as_bytes())
                || relative.is_some_and(|r| contains(&bytes, r.as_bytes()));
            if named {
                loaded.insert(candidate.clone());
                queue.push(candidate.clone());
            }
        }
    }
    Ok(loaded)
}

fn contains(haystack: &[u8], needle: &[u8]) -> bool {
    !needle.is_empty() && haystack.windows(needle.len()).any(|w| w == needle)
}

/// Fields the store reads from the manifest.
fn manifest_problems(manifest: &Value, version: &str) -> Vec<String> {
    let mut problems = Vec::new();
    if manifest["manifest_version"] != 3 {
        problems.push("manifest_version must be 3".into());
    }
    if manifest.get("key").is_some() {
        problems.push("the manifest has a `key`: the store refuses one".into());
    }
    for field in ["name", "description", "version", "icons"] {
        if manifest.get(field).is_none() {
            problems.push(format!("the manifest has no `{field}`"));
        }
    }
    if let Some(problem) = version_problem(manifest["version"].as_str().unwrap_or_default()) {
        problems.push(problem);
    }
    if manifest["version"].as_str() != Some(version) {
        problems.push(format!("the manifest's version is not the workspace's ({version})"));
    }
    problems
}

/// One to four dot-separated integers from 0 to 65535, without leading zeros, not all zero:
/// https://developer.chrome.com/docs/extensions/reference/manifest/version
fn version_problem(version: &str) -> Option<String> {
    let parts: Vec<&str> = version.split('.').collect();
    let part_ok = |p: &&str| {
        !p.is_empty()
            && p.chars().all(|c| c.is_ascii_digit())
            && (*p == "0" || !p.starts_with('0'))
            && p.parse::<u32>().is_ok_and(|n| n <= 65535)
    };
    let all_zero = parts.iter().all(|p| p.chars().all(|c| c == '0'));
    if parts.len() > 4 || !parts.iter().all(part_ok) || all_zero {
        return Some(format!(
            "version `{version}`: Chrome takes one to four dot-separated integers from 0 to \
             65535, without leading zeros, not all zero (set it in Cargo.toml's \
             [workspace.package])"
        ));
    }
    None
}

type Messages = BTreeMap<String, String>;

fn read_messages(path: &Path) -> Result<Messages> {
    let json = read_json(path)?;
    let object = json.as_object().ok_or_else(|| format!("{} is not an object", path.display()))?;
    Ok(object
        .iter()
        .map(|(key, entry)| (key.clone(), entry["message"].as_str().unwrap_or_default().to_owned()))
        .collect())
}

/// The `__MSG_x__` names in the manifest's strings.
fn manifest_message_names(manifest: &Value, out: &mut BTreeSet<String>) {
    match manifest {
        Value::String(text) => {
            let mut rest = text.as_str();
            while let Some(start) = rest.find("__MSG_") {
                let after = &rest[start + 6..];
                let Some(end) = after.find("__") else { break };
                out.insert(after[..end].to_owned());
                rest = &after[end + 2..];
            }
        }
        Value::Array(items) => items.iter().for_each(|v| manifest_message_names(v, out)),
        Value::Object(fields) => fields.values().for_each(|v| manifest_message_names(v, out)),
        _ => {}
    }
}

/// Every locale has every message of the default locale, and every message the manifest
/// names; the store's length limits hold in every language.
fn locale_problems(dist: &Path, manifest: &Value) -> Result<Vec<String>> {
    let mut problems = Vec::new();
    let Some(default) = manifest["default_locale"].as_str() else {
        return Ok(vec!["the manifest has no `default_locale` though it has _locales/".into()]);
    };
    let locales_dir = dist.join("_locales");
    let mut locales = BTreeMap::new();
    for entry in fs::read_dir(&locales_dir).map_err(|e| format!("reading _locales: {e}"))? {
        let dir = entry.map_err(|e| e.to_string())?.path();
        let name = dir.file_name().unwrap_or_default().to_string_lossy().into_owned();
        locales.insert(name, read_messages(&dir.join("messages.json"))?);
    }
    let Some(reference) = locales.get(default) else {
        return Ok(vec![format!("the default locale `{default}` has no _locales/{default}/")]);
    };
    let mut named = BTreeSet::new();
    manifest_message_names(manifest, &mut named);
    for (locale, messages) in &locales {
        let missing: Vec<&String> = reference
            .keys()
            .chain(named.iter())
            .filter(|k| !messages.contains_key(*k))
            .collect::<BTreeSet<_>>()
            .into_iter()
            .collect();
        if !missing.is_empty() {
            problems.push(format!("_locales/{locale} lacks messages: {missing:?}"));
        }
        for (field, limit) in FIELD_LIMITS {
            let Some(text) = manifest[field].as_str() else { continue };
            let shown = resolve(text, messages);
            let length = shown.chars().count();
            if length > limit {
                problems.push(format!(
                    "`{field}` in {locale} is {length} characters; the store allows {limit}: \
                     {shown:?}"
                ));
            }
        }
    }
    Ok(problems)
}

/// `text` with its `__MSG_x__` replaced from `messages`.
fn resolve(text: &str, messages: &Messages) -> String {
    let mut names = BTreeSet::new();
    manifest_message_names(&Value::String(text.to_owned()), &mut names);
    names.iter().fold(text.to_owned(), |text, name| {
        text.replace(&format!("__MSG_{name}__"), messages.get(name).map_or("", String::as_str))
    })
}

/// `icons` has every size in [`ICON_SIZES`], and each icon file (the toolbar's too) is a PNG
/// of the size it is declared at.
fn icon_problems(dist: &Path, manifest: &Value) -> Vec<String> {
    let mut problems = Vec::new();
    let declared = |value: &Value| -> Vec<(String, String)> {
        value
            .as_object()
            .map(|o| o.iter().map(|(k, v)| (k.clone(), v.as_str().unwrap_or("").into())).collect())
            .unwrap_or_default()
    };
    let icons = declared(&manifest["icons"]);
    for size in ICON_SIZES {
        if !icons.iter().any(|(s, _)| *s == size.to_string()) {
            problems.push(format!("`icons` has no {size}×{size} icon"));
        }
    }
    for (size, file) in icons.into_iter().chain(declared(&manifest["action"]["default_icon"])) {
        let expected: u32 = size.parse().unwrap_or(0);
        match fs::read(dist.join(&file)).ok().and_then(|bytes| png_size(&bytes)) {
            Some((w, h)) if w == expected && h == expected => {}
            Some((w, h)) => problems.push(format!("{file} is {w}×{h}, declared as {size}")),
            None => problems.push(format!("{file} (icon {size}) is missing or not a PNG")),
        }
    }
    problems
}

/// Width and height from a PNG's IHDR chunk.
fn png_size(bytes: &[u8]) -> Option<(u32, u32)> {
    if bytes.len() < 24 || &bytes[..8] != b"\x89PNG\r\n\x1a\n" || &bytes[12..16] != b"IHDR" {
        return None;
    }
    let word =
        |at: usize| u32::from_be_bytes([bytes[at], bytes[at + 1], bytes[at + 2], bytes[at + 3]]);
    Some((word(16), word(20)))
}

/// Only the extension's own code runs in its pages: their policy allows scripts from the
/// package alone, and no page or script loads one from elsewhere or makes code from text. The
/// manifest's sandbox page is apart: it shows MCP Apps (content from the servers the person
/// added) in an opaque origin without extension APIs, under the manifest's sandbox policy.
fn remote_code_problems(
    dist: &Path,
    manifest: &Value,
    loaded: &BTreeSet<String>,
) -> Result<Vec<String>> {
    let mut problems = Vec::new();
    let csp = manifest["content_security_policy"]["extension_pages"].as_str().unwrap_or_default();
    for directive in csp.split(';').map(str::trim) {
        let mut words = directive.split_whitespace();
        let Some(name) = words.next() else { continue };
        if !["script-src", "object-src", "worker-src", "default-src"].contains(&name) {
            continue;
        }
        for source in words {
            if !["'self'", "'wasm-unsafe-eval'", "'none'"].contains(&source) {
                problems.push(format!(
                    "content_security_policy.extension_pages lets `{name}` load `{source}`: \
                     extension pages may run only the package's own code"
                ));
            }
        }
    }
    let sandboxed = sandbox_files(dist, manifest)?;
    for file in loaded.iter().filter(|f| !sandboxed.contains(*f)) {
        let is_page = file.ends_with(".html");
        if !(is_page || file.ends_with(".js")) {
            continue;
        }
        let text = fs::read_to_string(dist.join(file)).map_err(|e| format!("{file}: {e}"))?;
        for (needle, what) in remote_code_patterns(is_page) {
            if text.contains(needle) {
                problems.push(format!("{file} {what} (`{needle}`): ship the code in the package"));
            }
        }
    }
    Ok(problems)
}

fn remote_code_patterns(page: bool) -> Vec<(&'static str, &'static str)> {
    if page {
        vec![
            ("src=\"http", "loads a script from the network"),
            ("src=\"//", "loads a script from the network"),
            ("href=\"http", "preloads from the network"),
        ]
    } else {
        vec![
            ("from 'http", "imports a module from the network"),
            ("from \"http", "imports a module from the network"),
            ("import('http", "imports a module from the network"),
            ("import(\"http", "imports a module from the network"),
            ("importScripts(", "loads scripts at run time"),
            ("eval(", "runs text as code"),
            ("new Function(", "runs text as code"),
        ]
    }
}

/// The manifest's sandbox pages and the scripts they load.
fn sandbox_files(dist: &Path, manifest: &Value) -> Result<BTreeSet<String>> {
    let mut files = BTreeSet::new();
    for page in manifest["sandbox"]["pages"].as_array().into_iter().flatten() {
        let Some(page) = page.as_str() else { continue };
        files.insert(page.to_owned());
        let html = fs::read_to_string(dist.join(page)).map_err(|e| format!("{page}: {e}"))?;
        for (at, _) in html.match_indices("<script src=\"") {
            let rest = &html[at + 13..];
            files.insert(rest[..rest.find('"').unwrap_or(0)].to_owned());
        }
    }
    Ok(files)
}

/// Every permission asked for is in [`PERMISSIONS`] and used by the shipped code.
fn permission_problems(
    dist: &Path,
    manifest: &Value,
    loaded: &BTreeSet<String>,
) -> Result<Vec<String>> {
    let mut code = Vec::new();
    for file in loaded.iter().filter(|f| f.ends_with(".js") || f.ends_with(".wasm")) {
        code.extend(fs::read(dist.join(file)).map_err(|e| format!("{file}: {e}"))?);
    }
    let mut problems = Vec::new();
    for list in ["permissions", "optional_permissions"] {
        for name in manifest[list].as_array().into_iter().flatten().filter_map(Value::as_str) {
            match PERMISSIONS.iter().find(|p| p.name == name) {
                None => problems.push(format!(
                    "`{name}` ({list}) has no justification: add it to PERMISSIONS in \
                     xtask/src/store.rs and PRIVACY.md, or remove it"
                )),
                Some(p) if !contains(&code, p.used_by.as_bytes()) => problems.push(format!(
                    "`{name}` ({list}) is asked for but no shipped code uses it (looked for \
                     `{}`): remove it from manifest.json",
                    p.used_by
                )),
                Some(_) => {}
            }
        }
    }
    Ok(problems)
}

/// A zip the same bytes for the same files: sorted, with one fixed time.
fn write_zip(path: &Path, dist: &Path, manifest: &Value, files: &BTreeSet<String>) -> Result {
    use zip::write::SimpleFileOptions;
    let file = fs::File::create(path).map_err(|e| format!("creating {}: {e}", path.display()))?;
    let mut zip = zip::ZipWriter::new(file);
    let options = SimpleFileOptions::default()
        .compression_method(zip::CompressionMethod::Deflated)
        .last_modified_time(zip::DateTime::default())
        .unix_permissions(0o644);
    let manifest_text = serde_json::to_string_pretty(manifest).map_err(|e| e.to_string())?;
    for name in files {
        let bytes = if name == "manifest.json" {
            manifest_text.clone().into_bytes()
        } else {
            fs::read(dist.join(name)).map_err(|e| format!("reading {name}: {e}"))?
        };
        zip.start_file(name.as_str(), options).map_err(|e| format!("zipping {name}: {e}"))?;
        zip.write_all(&bytes).map_err(|e| format!("zipping {name}: {e}"))?;
    }
    zip.finish().map_err(|e| format!("writing {}: {e}", path.display()))?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_workspace_version_is_read_from_its_section() {
        let toml = "[workspace]\nmembers = []\n[workspace.package]\nedition = \"2021\"\nversion = \"1.2.3\"\n[package]\nversion = \"9.9.9\"\n";
        assert_eq!(version_in(toml).as_deref(), Some("1.2.3"));
        assert_eq!(version_in("[package]\nversion = \"1\"\n"), None);
    }

    #[test]
    fn versions_are_checked_as_chrome_reads_them() {
        for good in ["0.1.0", "1", "1.2.3.4", "65535.0"] {
            assert_eq!(version_problem(good), None, "{good}");
        }
        for bad in ["", "0.0", "1.2.3.4.5", "01.2", "1.-2", "1.65536", "1.2-beta", "1..2"] {
            assert!(version_problem(bad).is_some(), "{bad}");
        }
    }

    #[test]
    fn the_store_manifest_has_no_key_and_the_workspace_version() {
        let manifest = serde_json::json!({"key": "abc", "version": "0.0.9", "name": "x"});
        let store = store_manifest(manifest, "0.2.0");
        assert_eq!(store, serde_json::json!({"version": "0.2.0", "name": "x"}));
    }

    /// A small extension in a temporary folder.
    struct Fixture(PathBuf);

    impl Fixture {
        fn new(name: &str) -> Fixture {
            let dir =
                std::env::temp_dir().join(format!("gemipanel-store-{name}-{}", std::process::id()));
            let _ = fs::remove_dir_all(&dir);
            Fixture(dir)
        }

        fn file(&self, path: &str, bytes: &[u8]) -> &Fixture {
            let path = self.0.join(path);
            fs::create_dir_all(path.parent().unwrap()).unwrap();
            fs::write(path, bytes).unwrap();
            self
        }
    }

    impl Drop for Fixture {
        fn drop(&mut self) {
            let _ = fs::remove_dir_all(&self.0);
        }
    }

    fn png(size: u32) -> Vec<u8> {
        let mut bytes = b"\x89PNG\r\n\x1a\n\0\0\0\x0dIHDR".to_vec();
        bytes.extend(size.to_be_bytes());
        bytes.extend(size.to_be_bytes());
        bytes.extend([8, 6, 0, 0, 0]);
        bytes
    }

    fn manifest() -> Value {
        serde_json::json!({
            "manifest_version": 3, "name": "__MSG_extName__", "description": "__MSG_extDescription__",
            "version": "0.1.0", "default_locale": "en",
            "icons": {"16": "icons/16.png", "32": "icons/32.png", "48": "icons/48.png", "128": "icons/128.png"},
            "background": {"service_worker": "background.js", "type": "module"},
            "action": {"default_popup": "popup.html"},
            "permissions": ["storage"],
            "content_security_policy": {"extension_pages": "script-src 'self' 'wasm-unsafe-eval'; object-src 'self'"}
        })
    }

    fn extension(name: &str) -> Fixture {
        let fixture = Fixture::new(name);
        for size in ICON_SIZES {
            fixture.file(&format!("icons/{size}.png"), &png(size));
        }
        fixture
            .file("manifest.json", manifest().to_string().as_bytes())
            .file(
                "_locales/en/messages.json",
                br#"{"extName": {"message": "Panel"}, "extDescription": {"message": "Chats."}}"#,
            )
            .file(
                "_locales/ja/messages.json",
                br#"{"extName": {"message": "Panel"}, "extDescription": {"message": "Chats."}}"#,
            )
            .file(
                "background.js",
                b"import init from './wasm/worker.js'; chrome.storage.local.get('x');",
            )
            .file("wasm/worker.js", b"new URL('worker_bg.wasm', import.meta.url)")
            .file("wasm/worker_bg.wasm", b"\0asm...vendor/lib.js...")
            .file("vendor/lib.js", b"// executed in a tab")
            .file("popup.html", b"<script type=\"module\" src=\"popup.js\"></script>")
            .file("popup.js", b"")
            .file("notes.txt", b"nobody loads me");
        fixture
    }

    #[test]
    fn only_files_something_names_are_packaged() {
        let fixture = extension("loaded");
        let files = all_files(&fixture.0).unwrap();
        let loaded = loaded_files(&fixture.0, &files).unwrap();
        let expected = [
            "_locales/en/messages.json",
            "_locales/ja/messages.json",
            "background.js",
            "icons/128.png",
            "icons/16.png",
            "icons/32.png",
            "icons/48.png",
            "manifest.json",
            "popup.html",
            "popup.js",
            "vendor/lib.js",
            "wasm/worker.js",
            "wasm/worker_bg.wasm",
        ];
        assert_eq!(loaded.iter().map(String::as_str).collect::<Vec<_>>(), expected);
    }

    #[test]
    fn a_good_extension_packs_into_a_zip_without_its_key() {
        let fixture = extension("good");
        let out = Fixture::new("good-out");
        let version = workspace_version().unwrap();
        let mut manifest = manifest();
        manifest["key"] = "abc".into();
        manifest["version"] = version.clone().into();
        fixture.file("manifest.json", manifest.to_string().as_bytes());
        let zip_path = package(&fixture.0, &out.0).unwrap();
        assert!(zip_path.ends_with(format!("gemipanel-{version}.zip")));
        let mut archive = zip::ZipArchive::new(fs::File::open(&zip_path).unwrap()).unwrap();
        let names: Vec<String> = (0..archive.len())
            .map(|i| archive.by_index(i).unwrap().name().unwrap().into_owned())
            .collect();
        assert!(
            names.contains(&"wasm/worker_bg.wasm".to_owned())
                && !names.contains(&"notes.txt".to_owned()),
            "{names:?}"
        );
        let mut text = String::new();
        std::io::Read::read_to_string(&mut archive.by_name("manifest.json").unwrap(), &mut text)
            .unwrap();
        let packed: Value = serde_json::from_str(&text).unwrap();
        assert_eq!(packed.get("key"), None);
        assert_eq!(packed["version"], version.as_str());
    }

    /// A case: its name, how it spoils a good extension, and what the error must say.
    type Spoiled = (&'static str, fn(&Fixture), &'static str);

    /// Each mistake the store would refuse fails the package, naming it.
    #[test]
    fn what_the_store_refuses_fails_the_package_with_a_clear_message() {
        let cases: [Spoiled; 8] = [
            (
                "long-name",
                |f| {
                    f.file("_locales/ja/messages.json", format!(r#"{{"extName": {{"message": "{}"}}, "extDescription": {{"message": "x"}}}}"#, "長".repeat(76)).as_bytes());
                },
                "`name` in ja is 76 characters; the store allows 75",
            ),
            (
                "missing-message",
                |f| {
                    f.file("_locales/ja/messages.json", br#"{"extName": {"message": "P"}}"#);
                },
                "_locales/ja lacks messages: [\"extDescription\"]",
            ),
            (
                "icon-size",
                |f| {
                    f.file("icons/48.png", &png(64));
                },
                "icons/48.png is 64×64, declared as 48",
            ),
            (
                "icon-missing",
                |f| {
                    let mut m = manifest();
                    m["icons"].as_object_mut().unwrap().remove("128");
                    f.file("manifest.json", m.to_string().as_bytes());
                },
                "`icons` has no 128×128 icon",
            ),
            (
                "remote-script",
                |f| {
                    f.file("popup.html", b"<script src=\"https://cdn.example/x.js\"></script><script src=\"popup.js\"></script>");
                },
                "popup.html loads a script from the network",
            ),
            (
                "eval",
                |f| {
                    f.file("popup.js", b"eval(text)");
                },
                "popup.js runs text as code",
            ),
            (
                "unused-permission",
                |f| {
                    let mut m = manifest();
                    m["permissions"] = serde_json::json!(["storage", "contextMenus"]);
                    f.file("manifest.json", m.to_string().as_bytes());
                },
                "`contextMenus` (permissions) is asked for but no shipped code uses it",
            ),
            (
                "unjustified-permission",
                |f| {
                    let mut m = manifest();
                    m["permissions"] = serde_json::json!(["storage", "history"]);
                    f.file("manifest.json", m.to_string().as_bytes());
                },
                "`history` (permissions) has no justification",
            ),
        ];
        for (name, spoil, expected) in cases {
            let fixture = extension(name);
            let mut m: Value =
                serde_json::from_slice(&fs::read(fixture.0.join("manifest.json")).unwrap())
                    .unwrap();
            m["version"] = workspace_version().unwrap().into();
            fixture.file("manifest.json", m.to_string().as_bytes());
            spoil(&fixture);
            if name.ends_with("permission") || name == "icon-missing" {
                let mut m: Value =
                    serde_json::from_slice(&fs::read(fixture.0.join("manifest.json")).unwrap())
                        .unwrap();
                m["version"] = workspace_version().unwrap().into();
                fixture.file("manifest.json", m.to_string().as_bytes());
            }
            let out = Fixture::new(&format!("{name}-out"));
            let error = package(&fixture.0, &out.0).unwrap_err();
            assert!(error.contains(expected), "{name}: {error}");
            assert!(
                !out.0.exists() || fs::read_dir(&out.0).unwrap().next().is_none(),
                "{name}: a zip was written"
            );
        }
    }
}
