//! Architecture invariant: core's modules form layers, and code only reaches down.
//!
//! Every top-level module of `core/src` belongs to one layer; a module's code may name
//! (`crate::…`) modules of its own layer or of layers below, never one above. A new module
//! must be placed here before it builds green, which is the point: where it sits is a decision.
//! Test code (`#[cfg(test)]` and what follows it) and comments are not read.

use std::collections::BTreeSet;
use std::fs;
use std::path::{Path, PathBuf};

/// Bottom first.
const LAYERS: &[(&str, &[&str])] = &[
    (
        "ground: words, JSON, URLs, time, secrets; no protocol",
        &[
            "backoff",
            "branches",
            "deadlines",
            "decode",
            "hash",
            "json_pieces",
            "jsonrpc",
            "menu",
            "secret",
            "secret_words",
            "sse",
            "sync",
            "text",
            "url_policy",
            "web_url",
        ],
    ),
    ("the MCP client", &["mcp"]),
    (
        "over MCP and HTTP: the Gemini API, MCP Apps, the native bridge",
        &["apps", "gemini", "native"],
    ),
    ("what the person configured", &["settings", "vault"]),
    (
        "the product's services",
        &[
            "first_run",
            "mentions",
            "oauth",
            "page",
            "reset",
            "resource_updates",
            "saved_session",
            "slash",
            "tool_cache",
            "tools",
            "whats_new",
        ],
    ),
    (
        "what pages and the worker say to each other, and the chats pages keep",
        &["chats", "messages", "server_status"],
    ),
];

fn src() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("src")
}

fn layer_of(module: &str) -> Option<usize> {
    LAYERS.iter().position(|(_, modules)| modules.contains(&module))
}

/// The top-level modules declared in `lib.rs`.
fn modules() -> Vec<String> {
    let lib = fs::read_to_string(src().join("lib.rs")).expect("core/src/lib.rs");
    lib.lines()
        .filter_map(|line| {
            line.trim().strip_prefix("pub mod ").or(line.trim().strip_prefix("mod "))
        })
        .map(|rest| rest.trim_end_matches(';').trim().to_owned())
        .collect()
}

/// Every source file of `module`: `module.rs` and everything under `module/`.
fn files_of(module: &str) -> Vec<PathBuf> {
    fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
        let Ok(entries) = fs::read_dir(dir) else { return };
        for entry in entries.flatten() {
            let path = entry.path();
            if path.is_dir() {
                walk(&path, out);
            } else if path.extension().is_some_and(|e| e == "rs") {
                out.push(path);
            }
        }
    }
    let mut files = vec![src().join(format!("{module}.rs"))];
    walk(&src().join(module), &mut files);
    files.retain(|f| f.exists());
    files
}

/// The top-level modules a file's code names with `crate::name` or `crate::{name, …}`.
fn named_modules(source: &str) -> BTreeSet<String> {
    let code = source.split("#[cfg(test)]").next().unwrap_or_default();
    let code: String = code
        .lines()
        .filter(|line| !line.trim_start().starts_with("//"))
        .collect::<Vec<_>>()
        .join("\n");
    let mut named = BTreeSet::new();
    let ident = |s: &str| -> String {
        s.chars().take_while(|c| c.is_ascii_alphanumeric() || *c == '_').collect()
    };
    for (at, _) in code.match_indices("crate::") {
        let rest = &code[at + "crate::".len()..];
        if let Some(group) = rest.strip_prefix('{') {
            // Only the first segment of each item: `crate::{a::b, c}` names `a` and `c`.
            let group = &group[..group.find('}').unwrap_or(group.len())];
            named.extend(group.split(',').map(|item| ident(item.trim())));
        } else {
            named.insert(ident(rest));
        }
    }
    named.retain(|name| !name.is_empty());
    named
}

#[test]
fn every_module_has_a_layer() {
    let unplaced: Vec<_> = modules().into_iter().filter(|m| layer_of(m).is_none()).collect();
    assert!(unplaced.is_empty(), "place these modules in a layer of tests/layers.rs: {unplaced:?}");
}

#[test]
fn code_only_reaches_down() {
    let mut upward = Vec::new();
    for module in modules() {
        let Some(layer) = layer_of(&module) else { continue };
        for file in files_of(&module) {
            let source = fs::read_to_string(&file).expect("a source file");
            for named in named_modules(&source) {
                match layer_of(&named) {
                    Some(other) if other > layer => upward.push(format!(
                        "{} names `crate::{named}` ({}), above its layer ({})",
                        file.strip_prefix(src()).unwrap_or(&file).display(),
                        LAYERS[other].0,
                        LAYERS[layer].0,
                    )),
                    _ => {}
                }
            }
        }
    }
    assert!(upward.is_empty(), "imports against the layers:\n{}", upward.join("\n"));
}

#[test]
fn the_reader_sees_grouped_and_plain_paths_but_not_comments_or_tests() {
    let source = "use crate::text::Text;\nuse crate::{mcp::Tool, gemini};\n\
                  // see crate::tools\nfn f() { crate::hash::short_hash(\"\"); }\n\
                  #[cfg(test)]\nmod tests { use crate::messages::X; }";
    let named: Vec<_> = named_modules(source).into_iter().collect();
    assert_eq!(named, ["gemini", "hash", "mcp", "text"]);
}
