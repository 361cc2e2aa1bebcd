//! Every settings type, with every field filled, survives its JSON form. The values are struct
//! literals without `..`: a field added later breaks the build here until this test fills it too.

use gemipanel_core::messages::{Recovery, SettingsProblem};
use gemipanel_core::settings::{
    load, GeminiSettings, Headers, IdentityProvider, LocalCommand, OAuthClient, Secret, Server,
    ServerDraft, ServerId, ServerPatch, Settings, SettingsEdit, SignInMethod, ToolNames,
};
use gemipanel_core::text::Text;
use serde::de::DeserializeOwned;
use serde::Serialize;

fn round_trip<T: Serialize + DeserializeOwned + PartialEq + std::fmt::Debug>(value: &T) {
    let json = serde_json::to_value(value).expect("serialises");
    let back: T = serde_json::from_value(json.clone()).expect("reads back");
    assert_eq!(&back, value, "{json}");
}

fn headers() -> Headers {
    [("X-Api-Key".to_owned(), Secret::new("k")), ("Authorization".into(), Secret::new("Bearer t"))]
        .into_iter()
        .collect()
}

fn server() -> Server {
    Server {
        id: ServerId::generate([3; 16]),
        name: "Everything".into(),
        url: "https://mcp.example.com/mcp".into(),
        local: None,
        confirmed_command: None,
        confirmed_run: None,
        headers: headers(),
        timeout_ms: 12_000,
        trust: true,
        include_tools: Some(vec!["echo".into(), "add".into()]),
        exclude_tools: vec!["danger".into()],
        enabled_by_default: false,
        local_network: true,
        allowed_tools: ToolNames::from_iter(["echo".to_owned()]),
        oauth: oauth_client(),
    }
}

/// A local server, every field filled (a server is remote or local, never both).
fn local_server() -> Server {
    let command = local_command();
    Server {
        id: ServerId::generate([5; 16]),
        name: "Files".into(),
        url: String::new(),
        confirmed_command: Some(command.fingerprint()),
        confirmed_run: Some(command.run_line().fingerprint),
        local: Some(command),
        headers: Headers::new(),
        timeout_ms: 60_000,
        trust: false,
        include_tools: Some(vec!["list_directory".into()]),
        exclude_tools: vec!["write_file".into()],
        enabled_by_default: true,
        local_network: false,
        allowed_tools: ToolNames::from_iter(["read_file".to_owned()]),
        oauth: OAuthClient::default(),
    }
}

fn local_command() -> LocalCommand {
    LocalCommand {
        command: "npx".into(),
        args: vec!["-y".into(), "@modelcontextprotocol/server-filesystem".into(), "/tmp".into()],
        env: [("API_KEY".to_owned(), Secret::new("k"))].into_iter().collect(),
        cwd: Some("/tmp".into()),
    }
}

fn draft() -> ServerDraft {
    ServerDraft {
        name: "Draft".into(),
        url: "https://draft.example.com/mcp".into(),
        local: Some(local_command()),
        headers: Some(headers()),
        timeout_ms: Some(5_000),
        trust: true,
        include_tools: Some(vec!["a".into()]),
        exclude_tools: vec!["b".into()],
        enabled_by_default: false,
        local_network: true,
        oauth: oauth_client(),
    }
}

fn oauth_client() -> OAuthClient {
    OAuthClient {
        client_id: Some("my-client".into()),
        client_secret: Some(Secret::new("shh")),
        metadata_url: Some("https://gemipanel.example/client.json".into()),
        issuer: Some("https://auth.example".into()),
        private_key: Some(Secret::new(
            "-----BEGIN PRIVATE KEY-----
MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQgv0BAvkftLG1fbmAq
gSlHB+0seRYZjdD0WzUL+TU+VTahRANCAASAJrhgpEVy5o0OXEO0NLMkB2izvBPv
BzsJ5SbTB5WSR9jlbnaowpsP+/nFBeM5yy7hfeUqP4q/pPR9xgyWjh1m
-----END PRIVATE KEY-----",
        )),
        method: SignInMethod::Enterprise,
        identity_provider: Some(IdentityProvider {
            issuer: "https://idp.example".into(),
            client_id: "gemipanel".into(),
            client_secret: Some(Secret::new("idp-shh")),
        }),
    }
}

fn source_settings() -> gemipanel_core::settings::SourceSettings {
    gemipanel_core::settings::SourceSettings {
        trust: true,
        allowed_tools: ["read_page".to_owned()].into_iter().collect(),
        exclude_tools: vec!["screenshot".into()],
    }
}

use gemipanel_core::settings::SourceChange;

#[test]
fn the_document_with_every_field_filled_stores_and_loads() {
    let settings = Settings {
        version: gemipanel_core::settings::CURRENT_VERSION,
        gemini: GeminiSettings {
            api_key: Some(Secret::new("AIzaKey")),
            model: Some("gemini-2.5-pro".into()),
            base_url: Some("https://gemini.example.com".into()),
            instructions: Some("Answer in British English.\nBe brief.".into()),
            api_key_locked: false,
        },
        servers: vec![server(), local_server()],
        sources: [
            ("browser".to_owned(), source_settings()),
            ("page:https://shop.example".to_owned(), source_settings()),
        ]
        .into_iter()
        .collect(),
        skip_page_content_check: ["browser".to_owned()].into_iter().collect(),
    };
    round_trip(&settings);
    let stored = serde_json::to_value(&settings).unwrap();
    let loaded = load(&stored).expect("loads");
    assert_eq!(loaded.settings, settings);
    assert_eq!(loaded.migrated_from, None);
}

#[test]
fn every_edit_with_every_field_filled_round_trips() {
    let id = ServerId::generate([4; 16]);
    let patch = ServerPatch {
        name: Some("n".into()),
        url: Some("https://n.example.com/mcp".into()),
        local: Some(Some(local_command())),
        headers: Some(headers()),
        timeout_ms: Some(Some(9_000)),
        trust: Some(false),
        include_tools: Some(Some(vec!["x".into()])),
        exclude_tools: Some(vec!["y".into()]),
        enabled_by_default: Some(true),
        local_network: Some(false),
        oauth: Some(oauth_client()),
        headers_to_new_origin: true,
    };
    round_trip(&draft());
    round_trip(&patch);
    for edit in [
        SettingsEdit::SetApiKey { api_key: Some(Secret::new("k")) },
        SettingsEdit::SetModel { model: Some("m".into()) },
        SettingsEdit::AddServer { id: id.clone(), server: draft() },
        SettingsEdit::UpdateServer { id: id.clone(), changes: patch.clone() },
        SettingsEdit::RemoveServer { id: id.clone() },
        SettingsEdit::SetTrust { id: id.clone(), trust: true },
        SettingsEdit::SetEnabledByDefault { id: id.clone(), enabled: false },
        SettingsEdit::SetLocalNetwork { id: id.clone(), local_network: true },
        SettingsEdit::SetToolFilters {
            id: id.clone(),
            include_tools: Some(vec!["a".into()]),
            exclude_tools: vec!["b".into()],
        },
        SettingsEdit::AllowTool { id: id.clone(), tool: "t".into() },
        SettingsEdit::DisallowTool { id: id.clone(), tool: "t".into() },
        SettingsEdit::ConfirmCommand { id: id.clone(), command_line: "npx -y x".into(), run: None },
        SettingsEdit::SetSource { source: "browser".into(), change: SourceChange::Trust(true) },
        SettingsEdit::SetSource {
            source: "browser".into(),
            change: SourceChange::AllowTool("t".into()),
        },
        SettingsEdit::SetSource {
            source: "page:https://a.example".into(),
            change: SourceChange::ToolEnabled("t".into(), false),
        },
        SettingsEdit::SetSource {
            source: id.as_str().into(),
            change: SourceChange::PageContentCheck(false),
        },
        SettingsEdit::Import {
            servers: vec![server()],
            api_key: Some(Secret::new("k")),
            model: Some("m".into()),
            instructions: Some("Be brief.".into()),
        },
        SettingsEdit::SetInstructions { instructions: Some("Be brief.".into()) },
    ] {
        round_trip(&edit);
    }
    // Both ways of saying "default": absent and null differ for a patch.
    let defaults = ServerPatch {
        name: None,
        url: None,
        local: Some(None),
        headers: None,
        timeout_ms: Some(None),
        trust: None,
        include_tools: Some(None),
        exclude_tools: None,
        enabled_by_default: None,
        local_network: None,
        oauth: None,
        headers_to_new_origin: false,
    };
    round_trip(&defaults);
}

#[test]
fn the_settings_problem_and_recovery_round_trip() {
    let problem = SettingsProblem {
        error: Text::new("errSettingsNotObject"),
        kept_under: "settings_rejected_1".into(),
        at_ms: 7,
    };
    round_trip(&problem);
    for action in [Recovery::Restore, Recovery::ExportKept, Recovery::StartFresh] {
        round_trip(&action);
    }
}

/// A document stored before lines showed the values of variables that change what runs: same
/// version, no `confirmed_run`. Its confirmation stands for the line as configured, unless it
/// hid such a value from the person (`NODE_OPTIONS=…`): that server asks again, once.
#[test]
fn a_confirmation_from_before_stands_unless_it_hid_what_changes_what_runs() {
    let mut plain = local_server();
    plain.confirmed_run = None;
    let mut hid = local_server();
    hid.id = ServerId::generate([6; 16]);
    hid.name = "Hooked".into();
    let local = hid.local.as_mut().unwrap();
    local.env.insert("NODE_OPTIONS".into(), Secret::new("--require /tmp/hook.js"));
    hid.confirmed_command = Some(local.fingerprint());
    hid.confirmed_run = None;
    let settings = Settings {
        version: gemipanel_core::settings::CURRENT_VERSION,
        gemini: GeminiSettings::default(),
        servers: vec![plain, hid],
        ..Settings::default()
    };
    let stored = serde_json::to_value(&settings).unwrap();
    assert!(!stored.to_string().contains("confirmed_run"), "{stored}");
    let loaded = load(&stored).expect("an older document loads").settings;
    let (plain, hid) = (&loaded.servers[0], &loaded.servers[1]);
    assert!(plain.command_confirmed() && hid.command_confirmed());
    let configured = plain.local.as_ref().unwrap().run_line().fingerprint;
    assert_eq!(plain.allowed_run(), Some(configured));
    assert_eq!(hid.allowed_run(), None, "the person never saw NODE_OPTIONS's value");
    // Allowed again as the bridge showed it: that line is the one that runs.
    let line = hid.local.as_ref().unwrap().display();
    let confirm = SettingsEdit::ConfirmCommand {
        id: hid.id.clone(),
        command_line: line,
        run: Some("ab".into()),
    };
    let doc = gemipanel_core::settings::apply(&loaded, &confirm).unwrap();
    assert_eq!(doc.servers[1].allowed_run().as_deref(), Some("ab"));
}
