//! The settings document as stored (any version), the edits pages send, the server form, and
//! files to import. Secrets in these documents all contain [`MARK`]: no error may show it.

use gemipanel_core::settings::{
    apply, export, load, parse_headers, preview_import, validate_server, ExportOptions,
    GeminiSettings, Headers, OAuthClient, Server, ServerDraft, ServerId, ServerPatch, Settings,
    SettingsEdit, ToolNames, CURRENT_VERSION,
};
use gemipanel_core::settings::{Loaded, LocalCommand, Secret};
use gemipanel_core::url_policy::{self, Policy};
use proptest::collection::vec;
use proptest::prelude::*;
use proptest::sample::select;
use serde_json::{json, Map, Value};

use crate::gemini::round_trip;
use crate::json::{maybe, near, re, text, value};
use crate::support::check;

/// In every secret of a generated document; never in an error about it.
pub const MARK: &str = "S3CR3T";

/// `n`th of the few ids documents and edits share, so edits often name a server that exists.
fn id(n: u8) -> ServerId {
    ServerId::generate([n; 16])
}

pub fn secret() -> impl Strategy<Value = Secret> {
    re("[!-~]{0,12}").prop_map(|rest| Secret::new(format!("{MARK}{rest}")))
}

/// Any string as an id: the document's reader takes any, `validate` refuses what is not ours.
fn any_id() -> impl Strategy<Value = ServerId> {
    prop_oneof![
        (0u8..6).prop_map(id),
        text().prop_map(|t| serde_json::from_value(Value::String(t)).expect("ids are strings")),
    ]
}

/// URLs of every kind the policy sorts: public, loopback, private, refused, not URLs.
const URLS: &[&str] = &[
    "https://a.example/mcp",
    "https://b.example:8443/x/y?key=1#f",
    "https://user:pw@c.example/",
    "http://127.0.0.1:3001/mcp",
    "http://localhost:8080/",
    "http://[::1]:9/m",
    "https://xn--bcher-kva.example/mcp",
    "https://bücher.example/mcp",
    "https://192.168.1.10/mcp",
    "https://printer.local/",
    "http://192.168.1.10/mcp",
    "http://a.example/",
    "https://169.254.169.254/latest",
    "https://0.0.0.0/",
    "ftp://a.example/",
    "javascript:alert(1)",
    "https://",
    "a.example/mcp",
    "",
];

fn url() -> impl Strategy<Value = String> {
    prop_oneof![4 => select(URLS).prop_map(str::to_owned), 1 => text()]
}

/// A client identity for sign-in with anything in its fields.
fn oauth() -> impl Strategy<Value = OAuthClient> {
    (maybe(text()), maybe(secret()), maybe(url())).prop_map(
        |(client_id, client_secret, metadata_url)| OAuthClient {
            client_id,
            client_secret,
            issuer: metadata_url.clone(),
            metadata_url,
            ..OAuthClient::default()
        },
    )
}

/// A URL the policy accepts for a server with this tick, normalised as stored.
fn valid_url(local_network: bool) -> impl Strategy<Value = String> {
    select(URLS).prop_map(move |u| {
        url_policy::check(u, Policy::Configured { local_network })
            .map(String::from)
            .unwrap_or_else(|_| "https://a.example/mcp".to_owned())
    })
}

fn name() -> impl Strategy<Value = String> {
    prop_oneof![
        3 => select(&["a", "A", "GitHub", "github", "Files", "x y", "Ünï"][..]).prop_map(str::to_owned),
        1 => re("[A-Za-z0-9][A-Za-z0-9 ._-]{0,8}[A-Za-z0-9]"),
        1 => text(),
    ]
}

fn tool_name() -> impl Strategy<Value = String> {
    prop_oneof![3 => re("[a-z_]{1,10}"), 1 => re("\\PC{1,6}"), 1 => text()]
}

fn valid_tool_name() -> impl Strategy<Value = String> {
    prop_oneof![re("[a-z_]{1,10}"), re("\\PC{1,6}")]
}

/// Header names outside the reserved ones, values the browser can send.
fn valid_headers() -> impl Strategy<Value = Headers> {
    vec((re("X-[A-Za-z0-9-]{1,8}"), secret()), 0..3).prop_map(|pairs| {
        let mut headers = Headers::new();
        for (name, value) in pairs {
            if !headers.keys().any(|k| k.eq_ignore_ascii_case(&name)) {
                headers.insert(name, value);
            }
        }
        headers
    })
}

fn headers() -> impl Strategy<Value = Headers> {
    prop_oneof![
        3 => valid_headers(),
        1 => vec((prop_oneof![Just("Host".to_owned()), text()], secret()), 0..3)
            .prop_map(Headers::from_iter),
    ]
}

fn timeout() -> impl Strategy<Value = u64> {
    prop_oneof![3 => 100u64..=3_600_000, 1 => any::<u64>()]
}

/// A server that `validate` accepts; its name ends in `n`, so names in a document differ.
fn valid_server(n: u8) -> impl Strategy<Value = Server> {
    let tools = || vec(valid_tool_name(), 0..3);
    (
        (any::<bool>().prop_flat_map(|local| (Just(local), valid_url(local))), name()),
        (valid_headers(), 100u64..=3_600_000, any::<bool>(), any::<bool>()),
        (maybe(tools()), tools(), tools()),
    )
        .prop_map(
            move |(
                ((local_network, url), base),
                (headers, timeout_ms, trust, enabled_by_default),
                (include_tools, exclude_tools, allowed),
            )| {
                let base: String = base.chars().filter(|c| c.is_alphanumeric()).take(20).collect();
                Server {
                    id: id(n),
                    name: format!("{base}{n}"),
                    url,
                    local: None,
                    confirmed_command: None,
                    confirmed_run: None,
                    headers,
                    timeout_ms,
                    trust,
                    include_tools,
                    exclude_tools,
                    enabled_by_default,
                    local_network,
                    allowed_tools: ToolNames::from_iter(allowed),
                    oauth: OAuthClient::default(),
                }
            },
        )
}

fn model() -> impl Strategy<Value = Option<String>> {
    maybe(prop_oneof![Just("gemini-3.8-flash".to_owned()), re("[a-z0-9.-]{1,20}")])
}

/// The Gemini part of a document as stored (a key sealed under a passphrase is the vault's
/// business, not these properties').
fn gemini(
    api_key: Option<Secret>,
    model: Option<String>,
    base_url: Option<String>,
    instructions: Option<String>,
) -> GeminiSettings {
    GeminiSettings { api_key, model, base_url, instructions, api_key_locked: false }
}

/// A document `validate` accepts.
pub fn valid_settings() -> BoxedStrategy<Settings> {
    let api_key = maybe(re("[!-~]{0,20}").prop_map(|k| Secret::new(format!("{MARK}{k}"))));
    let base_url = maybe(valid_url(false));
    let servers =
        (0usize..4).prop_flat_map(|count| (0..count as u8).map(valid_server).collect::<Vec<_>>());
    // As `SetInstructions` stores them: trimmed, never blank.
    let instructions = maybe(re("[a-zA-Z][a-zA-Z .\n]{0,38}[a-z.]"));
    (api_key, model(), base_url, instructions, servers)
        .prop_map(|(api_key, model, base_url, instructions, servers)| Settings {
            version: CURRENT_VERSION,
            gemini: gemini(api_key, model, base_url, instructions),
            servers,
            ..Settings::default()
        })
        .boxed()
}

/// A server with anything in its fields.
fn any_server() -> impl Strategy<Value = Server> {
    (
        (any_id(), name(), url(), headers()),
        (timeout(), any::<bool>(), maybe(vec(tool_name(), 0..3)), vec(tool_name(), 0..3)),
        (any::<bool>(), any::<bool>(), vec(tool_name(), 0..3), oauth()),
        (maybe(local_command()), maybe(text())),
    )
        .prop_map(
            |(
                (id, name, url, headers),
                (timeout_ms, trust, include_tools, exclude_tools),
                (enabled_by_default, local_network, allowed, oauth),
                (local, confirmed_command),
            )| Server {
                id,
                name,
                url,
                local,
                confirmed_run: confirmed_command.clone(),
                confirmed_command,
                headers,
                timeout_ms,
                trust,
                include_tools,
                exclude_tools,
                enabled_by_default,
                local_network,
                allowed_tools: ToolNames::from_iter(allowed),
                oauth,
            },
        )
}

/// A local command with anything in its fields.
fn local_command() -> impl Strategy<Value = LocalCommand> {
    (text(), vec(text(), 0..3), vec((text(), secret()), 0..3), maybe(text())).prop_map(
        |(command, args, env, cwd)| LocalCommand {
            command,
            args,
            env: env.into_iter().collect(),
            cwd,
        },
    )
}

/// A document with anything in its fields (what serde reads, not what `validate` accepts).
fn any_settings() -> impl Strategy<Value = Settings> {
    (
        any::<u64>(),
        maybe(secret()),
        maybe(text()),
        maybe(url()),
        maybe(text()),
        vec(any_server(), 0..3),
    )
        .prop_map(|(version, api_key, model, base_url, instructions, servers)| Settings {
            version,
            gemini: gemini(api_key, model, base_url, instructions),
            servers,
            ..Settings::default()
        })
}

pub fn draft() -> impl Strategy<Value = ServerDraft> {
    (
        (name(), url(), maybe(headers()), maybe(timeout())),
        (any::<bool>(), maybe(vec(tool_name(), 0..3)), vec(tool_name(), 0..3)),
        (any::<bool>(), any::<bool>(), oauth()),
    )
        .prop_map(
            |(
                (name, url, headers, timeout_ms),
                (trust, include_tools, exclude_tools),
                (enabled_by_default, local_network, oauth),
            )| ServerDraft {
                name,
                url,
                local: None,
                headers,
                timeout_ms,
                trust,
                include_tools,
                exclude_tools,
                enabled_by_default,
                local_network,
                oauth,
            },
        )
}

fn patch() -> impl Strategy<Value = ServerPatch> {
    (
        (maybe(name()), maybe(url()), maybe(headers()), maybe(maybe(timeout()))),
        (maybe(any::<bool>()), maybe(maybe(vec(tool_name(), 0..3))), maybe(vec(tool_name(), 0..3))),
        (maybe(any::<bool>()), maybe(any::<bool>()), any::<bool>(), maybe(oauth())),
    )
        .prop_map(
            |(
                (name, url, headers, timeout_ms),
                (trust, include_tools, exclude_tools),
                (enabled_by_default, local_network, headers_to_new_origin, oauth),
            )| ServerPatch {
                name,
                url,
                local: None,
                headers,
                timeout_ms,
                trust,
                include_tools,
                exclude_tools,
                enabled_by_default,
                local_network,
                headers_to_new_origin,
                oauth,
            },
        )
}

/// Every edit, aimed mostly at the ids documents use.
pub fn edit() -> BoxedStrategy<SettingsEdit> {
    let target = || prop_oneof![4 => (0u8..5).prop_map(id), 1 => any_id()];
    prop_oneof![
        maybe(prop_oneof![secret(), text().prop_map(Secret::new)])
            .prop_map(|api_key| SettingsEdit::SetApiKey { api_key }),
        prop_oneof![model(), maybe(text())].prop_map(|model| SettingsEdit::SetModel { model }),
        maybe(text()).prop_map(|instructions| SettingsEdit::SetInstructions { instructions }),
        (prop_oneof![(0u8..8).prop_map(id), any_id()], draft())
            .prop_map(|(id, server)| SettingsEdit::AddServer { id, server }),
        (target(), patch()).prop_map(|(id, changes)| SettingsEdit::UpdateServer { id, changes }),
        target().prop_map(|id| SettingsEdit::RemoveServer { id }),
        (target(), any::<bool>()).prop_map(|(id, trust)| SettingsEdit::SetTrust { id, trust }),
        (target(), any::<bool>())
            .prop_map(|(id, enabled)| SettingsEdit::SetEnabledByDefault { id, enabled }),
        (target(), any::<bool>())
            .prop_map(|(id, local_network)| SettingsEdit::SetLocalNetwork { id, local_network }),
        (target(), maybe(vec(tool_name(), 0..3)), vec(tool_name(), 0..3)).prop_map(
            |(id, include_tools, exclude_tools)| SettingsEdit::SetToolFilters {
                id,
                include_tools,
                exclude_tools
            }
        ),
        (target(), tool_name()).prop_map(|(id, tool)| SettingsEdit::AllowTool { id, tool }),
        (target(), tool_name()).prop_map(|(id, tool)| SettingsEdit::DisallowTool { id, tool }),
        (
            vec(
                prop_oneof![(0u8..8).prop_flat_map(valid_server).boxed(), any_server().boxed()],
                0..3
            ),
            maybe(secret()),
            prop_oneof![model(), maybe(text())],
            maybe(text())
        )
            .prop_map(|(servers, api_key, model, instructions)| SettingsEdit::Import {
                servers,
                api_key,
                model,
                instructions
            }),
    ]
    .boxed()
}

/// Whatever a failure says, in every form it can be shown.
fn shown(error: &dyn std::fmt::Debug, display: String) -> String {
    format!("{display} {error:?}")
}

fn no_secret_in(what: &str, shown: &str) -> Result<(), TestCaseError> {
    prop_assert!(!shown.contains(MARK), "a secret in {}: {}", what, shown);
    Ok(())
}

fn to_value<T: serde::Serialize>(v: &T) -> Value {
    serde_json::to_value(v).expect("core's types serialise")
}

/// A stored document loads back as what was stored, unchanged and not migrated.
fn loads_back(doc: &Settings) -> Result<(), TestCaseError> {
    let stored = to_value(doc);
    match load(&stored) {
        Ok(loaded) => {
            prop_assert_eq!(loaded, Loaded { settings: doc.clone(), migrated_from: None });
            Ok(())
        }
        Err(e) => Err(TestCaseError::fail(format!("{stored} does not load: {e}"))),
    }
}

#[test]
fn settings_documents_and_edits_round_trip() {
    check(
        "settings_round_trip",
        (any_settings(), edit(), draft(), patch()),
        |(settings, edit, draft, patch)| {
            round_trip(&settings)?;
            round_trip(&edit)?;
            round_trip(&draft)?;
            round_trip(&patch)
        },
    );
}

#[test]
fn valid_settings_load_back_unchanged() {
    check("settings_load_back", valid_settings(), |doc| loads_back(&doc));
}

/// The documents `load` meets: its own (some damaged), older versions, and anything.
fn stored_document() -> BoxedStrategy<Value> {
    let current = valid_settings().prop_map(|doc| to_value(&doc));
    let v1 = (maybe(value()), maybe(text()), vec((name(), url(), maybe(value())), 0..3)).prop_map(
        |(key, model, servers)| {
            let mut doc = Map::new();
            if let Some(key) = key {
                doc.insert("geminiApiKey".into(), key);
            }
            if let Some(model) = model {
                doc.insert("model".into(), model.into());
            }
            let servers: Map<String, Value> = servers
                .into_iter()
                .map(|(name, url, headers)| {
                    let mut server = json!({ "url": url });
                    if let Some(headers) = headers {
                        server["headers"] = headers;
                    }
                    (name, server)
                })
                .collect();
            doc.insert("mcpServers".into(), Value::Object(servers));
            Value::Object(doc)
        },
    );
    let versioned = (
        prop_oneof![Just(json!(1)), Just(json!(2)), Just(json!(4)), Just(json!(0)), value()],
        crate::json::object(),
    )
        .prop_map(|(version, mut doc)| {
            doc.insert("version".into(), version);
            Value::Object(doc)
        });
    prop_oneof![
        4 => near(current),
        2 => near(v1),
        1 => versioned,
        1 => value(),
    ]
    .boxed()
}

#[test]
fn stored_settings_never_panic_load_and_errors_keep_secrets() {
    check("settings_load", stored_document(), |stored| match load(&stored) {
        // What loaded is stored as loaded: it must load again, the same.
        Ok(loaded) => loads_back(&loaded.settings),
        Err(e) => {
            prop_assert_eq!(e.raw(), &stored, "the document is kept as it was");
            no_secret_in("a load error", &shown(&e, e.to_string()))?;
            no_secret_in("a load error", &shown(e.reason(), e.reason().text().to_string()))
        }
    });
}

#[test]
fn older_versions_migrate_to_what_they_said() {
    check("settings_migrate", valid_settings(), |doc| {
        // Version 2: the same document with cached tool lists inside.
        let mut v2 = to_value(&doc);
        v2["version"] = json!(2);
        for server in v2["servers"].as_array_mut().into_iter().flatten() {
            server["cached_tools"] = json!({"tools": [{"name": "t"}], "fetched_at_ms": 1});
        }
        let loaded = load(&v2).map_err(|e| TestCaseError::fail(format!("v2: {e}")))?;
        prop_assert_eq!(loaded, Loaded { settings: doc.clone(), migrated_from: Some(2) });

        // Version 1: servers keyed by name, with a URL and headers and nothing else.
        let servers: Map<String, Value> = doc
            .servers
            .iter()
            .map(|s| (s.name.clone(), json!({"url": s.url, "headers": to_value(&s.headers)})))
            .collect();
        let mut v1 = json!({"model": doc.gemini.model, "mcpServers": servers});
        if let Some(key) = &doc.gemini.api_key {
            v1["geminiApiKey"] = json!(key.expose());
        }
        let loaded = load(&v1).map_err(|e| TestCaseError::fail(format!("v1 {v1}: {e}")))?;
        prop_assert_eq!(loaded.migrated_from, Some(1));
        prop_assert_eq!(&loaded.settings.gemini.api_key, &doc.gemini.api_key);
        prop_assert_eq!(&loaded.settings.gemini.model, &doc.gemini.model);
        let migrated: Vec<(&str, &str, &Headers)> =
            loaded.settings.servers.iter().map(|s| (&*s.name, &*s.url, &s.headers)).collect();
        let original: Vec<(&str, &str, &Headers)> =
            doc.servers.iter().map(|s| (&*s.name, &*s.url, &s.headers)).collect();
        prop_assert_eq!(migrated, original);
        Ok(())
    });
}

#[test]
fn edits_never_panic_and_what_they_make_loads_back() {
    check("settings_edit", (valid_settings(), vec(edit(), 1..4)), |(mut doc, edits)| {
        for edit in edits {
            match apply(&doc, &edit) {
                Ok(next) => {
                    loads_back(&next)?;
                    doc = next;
                }
                Err(e) => {
                    no_secret_in("an edit error", &shown(&e, e.to_string()))?;
                    let _ = (e.field(), e.is_unknown_server(), e.url_refusal());
                }
            }
        }
        Ok(())
    });
}

#[test]
fn the_header_box_never_panics() {
    let input = prop_oneof![
        valid_headers().prop_map(|h| to_value(&h).to_string()),
        near(headers().prop_map(|h| to_value(&h))).prop_map(|v| v.to_string()),
        text(),
    ];
    check("settings_header_box", input, |input| {
        match parse_headers(&input) {
            // What the box accepts, a server accepts.
            Ok(headers) => {
                let server = Server {
                    headers,
                    url: "https://a.example/mcp".into(),
                    ..Server::blank(id(0), "a".into())
                };
                prop_assert!(validate_server(&server).is_ok(), "{:?}", validate_server(&server));
            }
            Err(e) => no_secret_in("a header box error", &format!("{e:?} {}", e.text()))?,
        }
        Ok(())
    });
}

/// Files to import: the own export, gemini-cli's and Claude Desktop's formats (some damaged),
/// JSONC comments, anything.
fn import_file() -> BoxedStrategy<String> {
    let own = valid_settings().prop_map(|doc| {
        let mut v = to_value(&doc);
        v["format"] = json!("gemipanel.settings");
        v
    });
    let entry = prop_oneof![
        (url(), maybe(headers())).prop_map(|(u, h)| json!({"httpUrl": u, "headers": h})),
        (url(), select(&["http", "sse", "streamable-http", "stdio", "ws"][..]))
            .prop_map(|(u, t)| json!({"type": t, "url": u})),
        url().prop_map(|u| json!({"url": u, "timeout": -1, "trust": true, "env": {}})),
        Just(json!({"command": "npx", "args": ["mcp-remote", "https://a.example/mcp"]})),
        value(),
    ];
    let servers = vec((name(), entry), 0..4).prop_map(
        |entries| json!({"mcpServers": Value::Object(entries.into_iter().collect()), "theme": "x"}),
    );
    let json_text = near(prop_oneof![own, servers])
        .prop_map(|v| serde_json::to_string_pretty(&v).expect("values serialise"));
    let with_comments = (json_text.clone(), select(&["// c\n", "/* c */", "/*", "#"][..]))
        .prop_map(|(t, c)| format!("{c}{t}"));
    prop_oneof![4 => json_text, 1 => with_comments, 1 => text()].boxed()
}

#[test]
fn imports_never_panic_and_what_they_make_loads_back() {
    check("settings_import", (import_file(), valid_settings()), |(file, current)| {
        match preview_import(&file, &current, [9; 16]) {
            Ok(preview) => {
                for said in preview.warnings.iter().chain(preview.skipped.iter().map(|s| &s.reason))
                {
                    no_secret_in("an import message", &said.to_string())?;
                }
                let _ = (preview.is_empty(), preview.source.label());
                if let Ok(next) = apply(&current, &preview.into_edit()) {
                    loads_back(&next)?;
                }
            }
            Err(e) => no_secret_in("an import error", &shown(&e, e.to_string()))?,
        }
        Ok(())
    });
}

#[test]
fn an_export_with_secrets_imports_as_the_same_settings() {
    check("settings_export_import", valid_settings(), |doc| {
        let file = export(&doc, ExportOptions { include_secrets: true });
        prop_assert!(file.urls_shortened.is_empty());
        let preview = preview_import(&file.text, &Settings::default(), [3; 16])
            .map_err(|e| TestCaseError::fail(format!("the export does not import: {e}")))?;
        prop_assert!(preview.skipped.is_empty(), "skipped: {:?}", preview.skipped);
        let imported = apply(&Settings::default(), &preview.into_edit())
            .map_err(|e| TestCaseError::fail(format!("the import does not apply: {e}")))?;
        // Where the Gemini API is does not come with a file: a file must not send the key
        // elsewhere.
        let expected = Settings {
            gemini: GeminiSettings { base_url: None, ..doc.gemini.clone() },
            ..doc.clone()
        };
        prop_assert_eq!(imported, expected);
        Ok(())
    });
}

#[test]
fn an_export_without_secrets_holds_none() {
    check("settings_export_plain", valid_settings(), |doc| {
        let file = export(&doc, ExportOptions::default());
        no_secret_in("an export without secrets", &file.text)?;
        let preview = preview_import(&file.text, &doc, [3; 16])
            .map_err(|e| TestCaseError::fail(format!("the export does not import: {e}")))?;
        prop_assert!(preview.api_key.is_none());
        Ok(())
    });
}
