//! Import of gemini-cli and Claude Desktop configs (fixtures built from their documentation)
//! and of the extension's own export, and export with and without secrets.

use std::path::Path;

use gemipanel_core::settings::{
    apply, export, load, preview_import, ExportOptions, ImportError, ImportPreview, ImportSource,
    ServerDraft, ServerId, Settings, SettingsEdit,
};

const SEED: [u8; 16] = [7; 16];

fn fixture(name: &str) -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/settings").join(name);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

#[derive(Debug, PartialEq)]
enum Verdict {
    Added,
    Updated,
    Skipped(&'static str),
}
use Verdict::*;

fn verdict_of(preview: &ImportPreview, name: &str) -> Option<String> {
    if preview.added.iter().any(|s| s.name == name) {
        return Some("Added".into());
    }
    if preview.updated.iter().any(|s| s.name == name) {
        return Some("Updated".into());
    }
    preview.skipped.iter().find(|s| s.name == name).map(|s| format!("Skipped({})", s.reason))
}

fn check_table(preview: &ImportPreview, table: &[(&str, Verdict)]) {
    let mut failures = Vec::new();
    for (name, expected) in table {
        let got = verdict_of(preview, name).unwrap_or_else(|| "missing".into());
        let ok = match expected {
            Added => got == "Added",
            Updated => got == "Updated",
            Skipped(says) => got.starts_with("Skipped(") && got.contains(says),
        };
        if !ok {
            failures.push(format!("{name}: expected {expected:?}, got {got}"));
        }
    }
    let total = preview.added.len() + preview.updated.len() + preview.skipped.len();
    assert_eq!(total, table.len(), "every server of the file is accounted for once");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    for text in preview.warnings.iter().chain(preview.skipped.iter().map(|s| &s.reason)) {
        assert!(!text.to_string().contains("FAKE"), "a secret leaked into {text}");
    }
}

/// The user already has a server called "github"; importing updates it, keeping its id.
fn current() -> Settings {
    let edit = SettingsEdit::AddServer {
        id: ServerId::generate([1; 16]),
        server: ServerDraft::new("github", "https://api.githubcopilot.com/mcp/"),
    };
    let doc = apply(&Settings::default(), &edit).unwrap();
    let allow =
        SettingsEdit::AllowTool { id: ServerId::generate([1; 16]), tool: "search_code".into() };
    apply(&doc, &allow).unwrap()
}

#[test]
fn gemini_cli_settings_json() {
    let preview = preview_import(&fixture("gemini_cli_settings.json"), &current(), SEED).unwrap();
    assert_eq!(preview.source, ImportSource::GeminiCli);
    #[rustfmt::skip]
    check_table(&preview, &[
        ("pythonTools",        Added),
        ("filteredServer",     Added),
        ("httpServer",         Added),
        ("httpServerWithAuth", Added),
        ("discoveredServer",   Added),
        ("googleCloudServer",  Added),
        ("github",             Updated),
        ("lanServer",          Added),
        ("plainHttpRemote",    Skipped("http is only allowed for loopback addresses; use https")),
    ]);
    let find =
        |name: &str| preview.added.iter().chain(&preview.updated).find(|s| s.name == name).unwrap();
    let auth = find("httpServerWithAuth");
    assert_eq!(auth.timeout_ms, 5000);
    assert_eq!(auth.headers["Authorization"].expose(), "Bearer FAKE-gemini-cli-token-0101");
    assert_eq!(auth.headers.len(), 3);
    let github = find("github");
    assert_eq!(github.id, ServerId::generate([1; 16]), "an update keeps the existing id");
    assert!(github.trust && github.allowed_tools.contains("search_code"));
    assert_eq!(github.exclude_tools, ["delete_repository"]);
    assert_eq!(github.timeout_ms, 600_000);
    assert!(find("lanServer").local_network);
    assert!(!find("httpServer").local_network);

    let warned = |name: &str, says: &str| {
        preview
            .warnings
            .iter()
            .map(ToString::to_string)
            .any(|w| w.contains(name) && w.contains(says))
    };
    assert!(warned("discoveredServer", "SSE transport"), "{:#?}", preview.warnings);
    assert!(warned("github", "header Authorization refers to an environment variable"));
    assert!(warned("googleCloudServer", "not imported: authProviderType, oauth"));
    assert!(warned("lanServer", "“local network server” is ticked"));

    // Command servers come in as local servers, exactly as the file runs them, unconfirmed.
    let python = find("pythonTools");
    let local = python.local.as_ref().expect("a local server");
    assert_eq!(python.url, "");
    assert_eq!(
        local.display(),
        "(cd ./mcp-servers/python && DATABASE_URL=… API_KEY=… python -m my_mcp_server --port 8080)"
    );
    assert_eq!(local.env["API_KEY"].expose(), "${EXTERNAL_API_KEY}", "the bridge expands it");
    assert_eq!(local.cwd.as_deref(), Some("./mcp-servers/python"));
    assert_eq!(python.timeout_ms, 15_000);
    assert!(!python.command_confirmed());
    assert!(warned("pythonTools", "relative"), "{:#?}", preview.warnings);
    let filtered = find("filteredServer");
    assert_eq!(
        filtered.include_tools.as_deref(),
        Some(&["safe_tool".to_owned(), "file_reader".into(), "data_processor".into()][..])
    );
}

#[test]
fn claude_desktop_config_json() {
    let preview =
        preview_import(&fixture("claude_desktop_config.json"), &Settings::default(), SEED).unwrap();
    assert_eq!(preview.source, ImportSource::ClaudeDesktop);
    #[rustfmt::skip]
    check_table(&preview, &[
        ("filesystem",        Added),
        ("remote-via-bridge", Added),
        ("linear",            Added),
        ("legacy-sse",        Added),
        ("metadata-trap",     Skipped("cloud metadata service")),
        ("odd-transport",     Skipped("transport type “websocket” is not supported")),
    ]);
    let linear = &preview.added.iter().find(|s| s.name == "linear").unwrap();
    assert_eq!(linear.url, "https://mcp.linear.app/mcp");
    assert_eq!(linear.headers["Authorization"].expose(), "Bearer FAKE-claude-token-0202");
    assert!(preview
        .warnings
        .iter()
        .map(ToString::to_string)
        .any(|w| w.contains("legacy-sse") && w.contains("SSE")));
    assert!(!preview.warnings.iter().map(ToString::to_string).any(|w| w.contains("linear")));
    let filesystem = preview.added.iter().find(|s| s.name == "filesystem").unwrap();
    assert_eq!(
        filesystem.local.as_ref().unwrap().display(),
        "npx -y @modelcontextprotocol/server-filesystem /Users/username/Desktop \
         /Users/username/Downloads"
    );
    assert!(preview.warnings.iter().map(ToString::to_string).any(|w| {
        w.contains("remote-via-bridge") && w.contains("mcp-remote to reach remote.mcp.example.com")
    }));
}

#[test]
fn an_imported_command_is_never_confirmed_by_the_file_and_a_changed_one_asks_again() {
    let preview =
        preview_import(&fixture("claude_desktop_config.json"), &Settings::default(), SEED).unwrap();
    let doc = apply(&Settings::default(), &preview.into_edit()).unwrap();
    let filesystem = doc.server_by_name("filesystem").unwrap().clone();
    assert!(!filesystem.command_confirmed());
    let line = filesystem.local.as_ref().unwrap().display();

    // A line other than the one stored is refused: the person did not see that one.
    let wrong = SettingsEdit::ConfirmCommand {
        id: filesystem.id.clone(),
        command_line: "npx".into(),
        run: None,
    };
    assert_eq!(apply(&doc, &wrong).unwrap_err().text().key, "errOnServer");
    let confirm =
        SettingsEdit::ConfirmCommand { id: filesystem.id.clone(), command_line: line, run: None };
    let doc = apply(&doc, &confirm).unwrap();
    let confirmed = doc.server_by_name("filesystem").unwrap();
    assert!(confirmed.command_confirmed());
    // Without the bridge's line, what was allowed is the line as configured.
    let configured = confirmed.local.as_ref().unwrap().run_line().fingerprint;
    assert_eq!(confirmed.allowed_run(), Some(configured));

    // The same file again keeps the confirmation; an export of it claims nothing.
    let again = preview_import(&fixture("claude_desktop_config.json"), &doc, SEED).unwrap();
    let doc = apply(&doc, &again.into_edit()).unwrap();
    assert!(doc.server_by_name("filesystem").unwrap().command_confirmed());
    assert!(doc.server_by_name("filesystem").unwrap().allowed_run().is_some());
    let exported = export(&doc, ExportOptions { include_secrets: true }).text;
    assert!(!exported.contains("confirmed_command"), "{exported}");
    assert!(!exported.contains("confirmed_run"), "{exported}");
    let mut forged: serde_json::Value = serde_json::from_str(&exported).unwrap();
    let print = doc.server_by_name("filesystem").unwrap().confirmed_command.clone().unwrap();
    for server in forged["servers"].as_array_mut().unwrap() {
        server["confirmed_command"] = print.clone().into();
        server["confirmed_run"] = print.clone().into();
        server["name"] = format!("{}-copy", server["name"].as_str().unwrap()).into();
    }
    let copied = preview_import(&forged.to_string(), &doc, SEED).unwrap();
    assert!(copied.added.iter().all(|s| s.allowed_run().is_none()), "{copied:?}");

    // An edit that changes the command line takes the confirmation back.
    let mut changed = doc.server_by_name("filesystem").unwrap().local.clone().unwrap();
    changed.args.push("/etc".into());
    let edit = SettingsEdit::UpdateServer {
        id: filesystem.id.clone(),
        changes: gemipanel_core::settings::ServerPatch {
            local: Some(Some(changed)),
            ..Default::default()
        },
    };
    let doc = apply(&doc, &edit).unwrap();
    assert!(!doc.server_by_name("filesystem").unwrap().command_confirmed());
}

#[test]
fn applying_a_preview_adds_and_updates_and_can_be_reloaded() {
    let doc = current();
    let preview = preview_import(&fixture("gemini_cli_settings.json"), &doc, SEED).unwrap();
    let (added, updated) = (preview.added.len(), preview.updated.len());
    let after = apply(&doc, &preview.clone().into_edit()).unwrap();
    assert_eq!(after.servers.len(), doc.servers.len() + added);
    assert_eq!(updated, 1);
    // Applying the same preview again changes nothing: servers match by name.
    assert_eq!(apply(&after, &preview.into_edit()).unwrap(), after);
    let stored = serde_json::to_value(&after).unwrap();
    assert_eq!(load(&stored).unwrap().settings, after);
}

#[test]
fn export_leaves_secrets_out_unless_asked() {
    let doc = load(&serde_json::from_str(&fixture("v4_full.json")).unwrap()).unwrap().settings;
    let plain = export(&doc, ExportOptions::default());
    assert_eq!(plain.urls_shortened, ["secret-query"]);
    let plain = plain.text;
    assert!(!plain.contains("FAKE"), "{plain}");
    assert!(plain.contains("\"X-Api-Key\""), "header names stay so the user knows what to fill in");
    assert!(!plain.contains("fetched_at_ms"), "tool caches are not exported");
    let full = export(&doc, ExportOptions { include_secrets: true });
    assert!(full.urls_shortened.is_empty());
    let full = full.text;
    assert!(
        full.contains("AIzaSyFAKE-current-key-0004") && full.contains("FAKE-header-secret-0005")
    );

    // Into a fresh install: without secrets, headers are dropped with a warning.
    let preview = preview_import(&plain, &Settings::default(), SEED).unwrap();
    assert_eq!(preview.source, ImportSource::GemiPanel);
    assert_eq!(preview.added.len(), 3);
    assert!(preview.api_key.is_none());
    assert!(preview.added[0].headers.is_empty());
    assert!(preview
        .warnings
        .iter()
        .map(ToString::to_string)
        .any(|w| w.contains("no value for header X-Api-Key")));
    assert_eq!(preview.model.as_deref(), Some("gemini-2.5-pro"));

    // With secrets, the round trip restores the document (less the cache).
    let preview = preview_import(&full, &Settings::default(), SEED).unwrap();
    let restored = apply(&Settings::default(), &preview.into_edit()).unwrap();
    let expected = doc.clone();
    assert_eq!(restored, expected);
}

#[test]
fn an_old_export_is_migrated_on_import() {
    let v1 = fixture("v1_prototype.json").replacen('{', r#"{ "format": "gemipanel.settings","#, 1);
    let preview = preview_import(&v1, &Settings::default(), SEED).unwrap();
    assert_eq!(preview.added.len(), 3);
    assert!(preview.api_key.is_some());
}

#[test]
fn files_that_are_not_settings_are_refused_without_quoting_them() {
    let big = format!("{{\"mcpServers\": {{}}, \"pad\": \"{}\"}}", "x".repeat(1 << 20));
    let cases = [
        ("{ \"geminiApiKey\": \"FAKE-7\" ", "not valid JSON"),
        ("[\"FAKE-8\"]", "neither a GemiPanel export"),
        ("{\"servers\": []}", "neither a GemiPanel export"),
        ("{\"format\": \"gemipanel.settings\", \"version\": 9}", "newer GemiPanel"),
        (big.as_str(), "larger than"),
    ];
    for (text, says) in cases {
        let e: ImportError = preview_import(text, &Settings::default(), SEED).unwrap_err();
        assert!(e.to_string().contains(says), "{e}");
        assert!(!e.to_string().contains("FAKE"));
    }
}

#[test]
fn malformed_entries_are_skipped_one_by_one() {
    let text = r#"{ "mcpServers": {
        "list": [],
        "no-url": { "trust": true },
        "bad-header": { "httpUrl": "https://a.example/", "headers": { "X": 1 } },
        "userinfo": { "httpUrl": "https://me:FAKE-9@a.example/" },
        "ok": { "httpUrl": "https://a.example/mcp", "timeout": -5 },
        "OK": { "httpUrl": "https://b.example/mcp" },
        "": { "httpUrl": "https://c.example/mcp" }
    } }"#;
    let preview = preview_import(text, &Settings::default(), SEED).unwrap();
    check_table(
        &preview,
        &[
            ("list", Skipped("could not be read: invalid type: sequence")),
            ("no-url", Skipped("no httpUrl or url")),
            (
                "bad-header",
                Skipped("headers.X: a secret (API key or header value) must be a string"),
            ),
            ("userinfo", Skipped("user name or password")),
            // Of two names that differ only in case, the first in the file wins.
            ("ok", Added),
            ("OK", Skipped("another server with this name")),
            ("", Skipped("needs a name")),
        ],
    );
    assert!(preview
        .warnings
        .iter()
        .map(ToString::to_string)
        .any(|w| w.contains("“ok”: the timeout is out of range")));
}

#[test]
fn comments_are_stripped_but_not_inside_strings() {
    let text = "{\n  // comment\n  \"mcpServers\": { /* block */ \"a\": { \"httpUrl\": \"https://a.example/x//y\" } }\n}";
    let preview = preview_import(text, &Settings::default(), SEED).unwrap();
    assert_eq!(preview.added[0].url, "https://a.example/x//y");
}

#[test]
fn export_without_secrets_blanks_arguments_that_look_like_secrets() {
    let file = r#"{"mcpServers": {
        "remote": {"command": "npx", "args": ["-y", "mcp-remote", "https://mcp.example.com/sse",
            "--header", "Authorization: Bearer FAKE-bearer-1"]},
        "gh": {"command": "gh-mcp", "args": ["--token", "FAKE-token-2", "--repo", "a/b"]},
        "by-env": {"command": "npx", "args": ["mcp-remote", "--header", "Authorization: Bearer ${AUTH}"]}
    }}"#;
    let preview = preview_import(file, &Settings::default(), SEED).unwrap();
    let doc = apply(&Settings::default(), &preview.into_edit()).unwrap();
    let plain = export(&doc, ExportOptions::default());
    assert!(!plain.text.contains("FAKE"), "{}", plain.text);
    assert!(plain.text.contains("Authorization: Bearer ${AUTH}"), "a reference is kept");
    assert!(plain.text.contains("--repo"));
    assert_eq!(plain.args_blanked, ["remote: --header Authorization", "gh: --token"]);
    let full = export(&doc, ExportOptions { include_secrets: true });
    assert!(full.text.contains("FAKE-bearer-1") && full.text.contains("FAKE-token-2"));
    assert!(full.args_blanked.is_empty());
}

#[test]
fn an_export_keeps_each_servers_sign_in_method_and_leaves_its_secrets_to_enter_again() {
    use gemipanel_core::settings::{
        IdentityProvider, OAuthClient, Secret, ServerDraft, SettingsEdit, SignInMethod,
    };
    let work = OAuthClient {
        client_id: Some("gemipanel-at-work".into()),
        client_secret: Some(Secret::new("FAKE-as-secret")),
        issuer: Some("https://auth.example.com".into()),
        method: SignInMethod::Enterprise,
        identity_provider: Some(IdentityProvider {
            issuer: "https://login.example.com".into(),
            client_id: "gemipanel".into(),
            client_secret: Some(Secret::new("FAKE-idp-secret")),
        }),
        ..OAuthClient::default()
    };
    let draft = ServerDraft {
        oauth: work.clone(),
        ..ServerDraft::new("work", "https://mcp.example.com/mcp")
    };
    let id = gemipanel_core::settings::ServerId::generate([9; 16]);
    let doc = apply(&Settings::default(), &SettingsEdit::AddServer { id, server: draft }).unwrap();

    let full = export(&doc, ExportOptions { include_secrets: true }).text;
    let preview = preview_import(&full, &Settings::default(), SEED).unwrap();
    assert_eq!(preview.added[0].oauth, work, "with secrets, all of it comes back");

    let plain = export(&doc, ExportOptions::default()).text;
    assert!(!plain.contains("FAKE"), "{plain}");
    let preview = preview_import(&plain, &Settings::default(), SEED).unwrap();
    let oauth = &preview.added[0].oauth;
    assert_eq!(oauth.method, SignInMethod::Enterprise);
    assert_eq!(oauth.issuer, work.issuer);
    assert_eq!(
        oauth.identity_provider.as_ref().map(|p| p.issuer.as_str()),
        Some("https://login.example.com")
    );
    assert!(preview.warnings.iter().map(ToString::to_string).any(|w| w.contains("sign-in secret")));
}

fn warned(preview: &ImportPreview, name: &str, says: &str) -> bool {
    preview.warnings.iter().map(ToString::to_string).any(|w| w.contains(name) && w.contains(says))
}

fn imported<'a>(preview: &'a ImportPreview, name: &str) -> &'a gemipanel_core::settings::Server {
    preview.added.iter().chain(&preview.updated).find(|s| s.name == name).unwrap()
}

#[test]
fn vs_code_mcp_json_with_inputs_it_asks_for() {
    let preview = preview_import(&fixture("vscode_mcp.json"), &current(), SEED).unwrap();
    assert_eq!(preview.source, ImportSource::VsCode);
    #[rustfmt::skip]
    check_table(&preview, &[
        ("Perplexity", Added),
        ("fetch",      Added),
        ("github",     Updated),
        ("my-remote",  Added),
        ("old-sse",    Added),
    ]);
    // A value VS Code prompts for is not in the file: left out, and the person told what it is.
    let perplexity = imported(&preview, "Perplexity").local.as_ref().unwrap();
    assert_eq!(perplexity.command, "npx");
    assert!(perplexity.env.is_empty(), "{:?}", perplexity.env.keys());
    assert!(warned(
        &preview,
        "Perplexity",
        "PERPLEXITY_API_KEY is one VS Code asks for (“Perplexity API Key”)"
    ));
    let remote = imported(&preview, "my-remote");
    assert_eq!(remote.url, "https://mcp.example.com/mcp");
    assert_eq!(remote.headers.keys().collect::<Vec<_>>(), ["X-Team"]);
    assert!(warned(
        &preview,
        "my-remote",
        "Authorization is one VS Code asks for (“Remote server token”)"
    ));
    assert!(!warned(&preview, "my-remote", "environment variable"), "{:#?}", preview.warnings);
    assert!(warned(&preview, "old-sse", "SSE transport"));
    assert_eq!(imported(&preview, "github").url, "https://api.githubcopilot.com/mcp/");
}

#[test]
fn cursor_mcp_json() {
    let preview = preview_import(&fixture("cursor_mcp.json"), &current(), SEED).unwrap();
    check_table(&preview, &[("server-name", Added), ("remote-server", Added)]);
    let remote = imported(&preview, "remote-server");
    assert_eq!(remote.url, "https://mcp.example.org/mcp");
    assert_eq!(remote.headers["API_KEY"].expose(), "FAKE-cursor-key-0402");
    let local = imported(&preview, "server-name").local.as_ref().unwrap();
    assert_eq!(local.env["API_KEY"].expose(), "FAKE-cursor-key-0401");
}

#[test]
fn claude_code_mcp_json() {
    let preview = preview_import(&fixture("claude_code_mcp.json"), &current(), SEED).unwrap();
    // Named for what it is: the format is Claude Desktop's, the file (`.mcp.json`) Claude Code's.
    assert_eq!(preview.source, ImportSource::ClaudeCode);
    assert_eq!(preview.source.label(), "Claude Code");
    #[rustfmt::skip]
    check_table(&preview, &[
        ("airtable",   Added),
        ("sentry",     Added),
        // Claude Code expands `${VAR:-default}` in a URL; a browser has no environment.
        ("api-server", Skipped("")),
    ]);
    // The bridge expands `${VAR}` in a local server's environment.
    let airtable = imported(&preview, "airtable").local.as_ref().unwrap();
    assert_eq!(airtable.env["AIRTABLE_API_KEY"].expose(), "${AIRTABLE_API_KEY}");
    assert_eq!(imported(&preview, "sentry").url, "https://mcp.sentry.dev/mcp");
}

#[test]
fn windsurf_and_antigravity_mcp_config_json() {
    let preview = preview_import(&fixture("windsurf_mcp_config.json"), &current(), SEED).unwrap();
    assert_eq!(preview.source, ImportSource::Windsurf);
    check_table(&preview, &[("github", Updated), ("figma", Added)]);
    let figma = imported(&preview, "figma");
    assert_eq!(figma.url, "https://figma.example.com/mcp");
    assert_eq!(figma.headers["API_KEY"].expose(), "FAKE-windsurf-key-0502");
    assert!(!warned(&preview, "figma", "SSE"), "serverUrl is Streamable HTTP");
    assert!(imported(&preview, "github").local.is_some());

    let preview =
        preview_import(&fixture("antigravity_mcp_config.json"), &current(), SEED).unwrap();
    assert_eq!(preview.source, ImportSource::Windsurf);
    check_table(&preview, &[("context7", Added), ("sequential-thinking", Added)]);
    assert_eq!(imported(&preview, "context7").url, "https://mcp.context7.com/mcp");
    assert!(preview.warnings.is_empty(), "{:#?}", preview.warnings);
}

/// Every stored version a person may have exported from: the file is that version's document
/// plus the export marker (the export format has been the stored document since version 1).
const EVERY_VERSION: [&str; 6] = [
    "v1_prototype.json",
    "v2_full.json",
    "v3_full.json",
    "v4_full.json",
    "v5_full.json",
    "v6_full.json",
];

/// A server as the person would see it, less what an import decides anew (its id, and the
/// confirmation of a command line, which is this computer's decision, never a file's).
fn as_configured(server: &gemipanel_core::settings::Server) -> serde_json::Value {
    let mut server = server.clone();
    server.forget_confirmation();
    let mut value = serde_json::to_value(server).unwrap();
    value.as_object_mut().unwrap().remove("id");
    value
}

#[test]
fn an_export_of_every_earlier_version_imports_as_that_version_loads() {
    for name in EVERY_VERSION {
        let stored: serde_json::Value = serde_json::from_str(&fixture(name)).unwrap();
        let loaded = load(&stored).unwrap_or_else(|e| panic!("{name}: {e:?}")).settings;
        let mut exported = stored.clone();
        exported["format"] = "gemipanel.settings".into();
        let text = serde_json::to_string_pretty(&exported).unwrap();

        // Into a fresh install: every server, the key and the model, as the version loads.
        let preview = preview_import(&text, &Settings::default(), SEED)
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(preview.source, ImportSource::GemiPanel, "{name}");
        assert!(preview.skipped.is_empty(), "{name}: {:?}", preview.skipped);
        let restored = apply(&Settings::default(), &preview.into_edit()).unwrap();
        let servers = |s: &Settings| s.servers.iter().map(as_configured).collect::<Vec<_>>();
        assert_eq!(servers(&restored), servers(&loaded), "{name}");
        assert_eq!(restored.gemini.api_key, loaded.gemini.api_key, "{name}");
        assert_eq!(restored.gemini.model, loaded.gemini.model, "{name}");

        // Into an install that has the same servers: each is updated in place, none added.
        let again = preview_import(&text, &loaded, SEED).unwrap();
        assert!(again.added.is_empty(), "{name}: {:?}", again.added);
        assert_eq!(again.updated.len(), loaded.servers.len(), "{name}");

        // And today's export of what it became reads back to the same servers.
        let today = export(&restored, ExportOptions { include_secrets: true }).text;
        let back = preview_import(&today, &Settings::default(), SEED).unwrap();
        let back = apply(&Settings::default(), &back.into_edit()).unwrap();
        assert_eq!(servers(&back), servers(&loaded), "{name}: today's export");
    }
}
