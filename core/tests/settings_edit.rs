//! Edits through the pure `apply`: each refuses bad input without changing anything, and a
//! thousand interleaved edits from three sources all land.

use gemipanel_core::settings::{
    apply, parse_headers, EditError, Field, Secret, ServerDraft, ServerId, ServerPatch, Settings,
    SettingsEdit,
};

fn id(n: u8) -> ServerId {
    ServerId::generate([n; 16])
}

fn add(doc: &Settings, n: u8, name: &str, url: &str) -> Settings {
    let edit = SettingsEdit::AddServer { id: id(n), server: ServerDraft::new(name, url) };
    apply(doc, &edit).unwrap_or_else(|e| panic!("adding {name}: {e}"))
}

fn base() -> Settings {
    add(&Settings::default(), 1, "everything", "http://localhost:3001/mcp")
}

use gemipanel_core::settings::SourceChange;

#[test]
fn bad_edits_are_refused_with_the_field_to_blame_and_change_nothing() {
    let doc = add(&base(), 2, "remote", "https://mcp.example.com/mcp");
    let lan = SettingsEdit::AddServer {
        id: id(3),
        server: ServerDraft {
            local_network: true,
            ..ServerDraft::new("lan", "https://nas.local/mcp")
        },
    };
    let doc = apply(&doc, &lan).unwrap();
    let private =
        ServerDraft { local_network: false, ..ServerDraft::new("lan2", "https://192.168.1.5/mcp") };
    #[rustfmt::skip]
    let cases: Vec<(SettingsEdit, Field, &str)> = vec![
        (SettingsEdit::AddServer { id: id(9), server: ServerDraft::new("EveryThing", "https://a.example/") }, Field::Name, "already exists"),
        (SettingsEdit::AddServer { id: id(9), server: ServerDraft::new("  ", "https://a.example/") }, Field::Name, "needs a name"),
        (SettingsEdit::AddServer { id: id(9), server: ServerDraft::new("remote2", "http://a.example/") }, Field::Url, "use https"),
        (SettingsEdit::AddServer { id: id(9), server: private }, Field::Url, "tick “local network server”"),
        (SettingsEdit::AddServer { id: id(1), server: ServerDraft::new("other", "https://a.example/") }, Field::ServerId, "same id"),
        (SettingsEdit::AddServer { id: id(9), server: ServerDraft { timeout_ms: Some(0), ..ServerDraft::new("t", "https://a.example/") } }, Field::Timeout, "between"),
        (SettingsEdit::AddServer { id: id(9), server: ServerDraft { headers: Some([("Bad Name".into(), Secret::new("FAKE-1"))].into()), ..ServerDraft::new("h", "https://a.example/") } }, Field::Headers, "not a valid header name"),
        (SettingsEdit::AddServer { id: id(9), server: ServerDraft { headers: Some([("X-Key".into(), Secret::new("FAKE\r\nInjected: 1"))].into()), ..ServerDraft::new("h", "https://a.example/") } }, Field::Headers, "line break"),
        (SettingsEdit::AddServer { id: id(9), server: ServerDraft { headers: Some([("X-Key".into(), Secret::new("FAKE ☃"))].into()), ..ServerDraft::new("h", "https://a.example/") } }, Field::Headers, "beyond Latin-1"),
        (SettingsEdit::AddServer { id: id(9), server: ServerDraft { headers: Some([("Mcp-Session-Id".into(), Secret::new("FAKE-2"))].into()), ..ServerDraft::new("h", "https://a.example/") } }, Field::Headers, "set by the browser or the MCP client"),
        (SettingsEdit::UpdateServer { id: id(2), changes: ServerPatch { name: Some("everything".into()), ..ServerPatch::default() } }, Field::Name, "already exists"),
        (SettingsEdit::SetLocalNetwork { id: id(3), local_network: false }, Field::Url, "tick “local network server”"),
        (SettingsEdit::SetModel { model: Some("gemini 2.5".into()) }, Field::Model, "may only contain"),
        (SettingsEdit::SetApiKey { api_key: Some(Secret::new("FAKE key with spaces")) }, Field::ApiKey, "printable ASCII"),
        (SettingsEdit::SetInstructions { instructions: Some("x".repeat(20_001)) }, Field::Instructions, "at most 20000 characters"),
        (SettingsEdit::AllowTool { id: id(1), tool: String::new() }, Field::AllowedTools, "not a valid tool name"),
        (SettingsEdit::SetToolFilters { id: id(1), include_tools: Some(vec!["a\u{0}".into()]), exclude_tools: vec![] }, Field::ToolFilters, "not a valid tool name"),
        (SettingsEdit::RemoveServer { id: id(7) }, Field::ServerId, "no longer exists"),
        (SettingsEdit::SetTrust { id: id(7), trust: true }, Field::ServerId, "no longer exists"),
    ];
    let mut failures = Vec::new();
    for (edit, field, says) in cases {
        match apply(&doc, &edit) {
            Ok(_) => failures.push(format!("{edit:?}: accepted")),
            Err(e) => {
                if e.field() != field || !e.to_string().contains(says) {
                    failures.push(format!("{edit:?}: {:?} {e}", e.field()));
                }
                assert!(
                    !e.to_string().contains("FAKE") && !format!("{e:?}").contains("FAKE"),
                    "{e:?}"
                );
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn a_refused_url_tells_the_popup_to_offer_the_tick() {
    let edit = SettingsEdit::AddServer {
        id: id(3),
        server: ServerDraft::new("lan", "https://10.0.0.2/mcp"),
    };
    let err = apply(&base(), &edit).unwrap_err();
    assert!(err.url_refusal().unwrap().needs_local_network());
    assert_eq!(err.to_string(), "server “lan”: 10.0.0.2 is a private network address: tick “local network server” to allow it");
    let ticked = SettingsEdit::AddServer {
        id: id(3),
        server: ServerDraft {
            local_network: true,
            ..ServerDraft::new("lan", "https://10.0.0.2/mcp")
        },
    };
    assert!(apply(&base(), &ticked).is_ok());
}

fn update(doc: &Settings, n: u8, changes: ServerPatch) -> Result<Settings, EditError> {
    apply(doc, &SettingsEdit::UpdateServer { id: id(n), changes })
}

#[test]
fn update_keeps_headers_when_none_are_sent_and_forgets_approvals_when_the_url_changes() {
    let mut doc = base();
    let headers = parse_headers(r#"{"Authorization": "Bearer FAKE-3"}"#).unwrap();
    doc =
        update(&doc, 1, ServerPatch { headers: Some(headers), ..ServerPatch::default() }).unwrap();
    doc = apply(&doc, &SettingsEdit::AllowTool { id: id(1), tool: "echo".into() }).unwrap();
    let renamed = ServerPatch {
        name: Some("Everything".into()),
        url: Some("http://LOCALHOST:3001/mcp".into()),
        trust: Some(true),
        ..ServerPatch::default()
    };
    doc = update(&doc, 1, renamed).unwrap();
    let s = doc.server(&id(1)).unwrap();
    assert_eq!((s.name.as_str(), s.trust), ("Everything", true));
    assert_eq!(s.headers["Authorization"].expose(), "Bearer FAKE-3");
    // Same URL once normalised: approvals stay.
    assert!(s.allowed_tools.contains("echo"));

    let moved =
        ServerPatch { url: Some("http://localhost:3001/other".into()), ..ServerPatch::default() };
    let doc = update(&doc, 1, moved).unwrap();
    let s = doc.server(&id(1)).unwrap();
    assert!(s.allowed_tools.is_empty(), "approvals were for another endpoint");
    assert_eq!(s.headers["Authorization"].expose(), "Bearer FAKE-3", "same origin keeps them");
}

#[test]
fn a_form_opened_before_another_edit_does_not_undo_it() {
    let doc = base();
    let opened = ServerDraft::of(doc.server(&id(1)).unwrap());
    // Meanwhile the side panel trusts the server and filters its tools.
    let doc = apply(&doc, &SettingsEdit::SetTrust { id: id(1), trust: true }).unwrap();
    let filters = SettingsEdit::SetToolFilters {
        id: id(1),
        include_tools: None,
        exclude_tools: vec!["danger".into()],
    };
    let doc = apply(&doc, &filters).unwrap();
    // The stale form only renames the server.
    let saved = ServerDraft { name: "renamed".into(), ..opened.clone() };
    let changes = ServerPatch::between(&opened, &saved);
    assert_eq!(changes, ServerPatch { name: Some("renamed".into()), ..ServerPatch::default() });
    let doc = update(&doc, 1, changes).unwrap();
    let s = doc.server(&id(1)).unwrap();
    assert_eq!((s.name.as_str(), s.trust), ("renamed", true));
    assert_eq!(s.exclude_tools, ["danger"]);
}

#[test]
fn header_values_do_not_follow_a_server_to_another_origin_unless_confirmed() {
    let headers = parse_headers(r#"{"Authorization": "Bearer FAKE-7"}"#).unwrap();
    let doc = update(&base(), 1, ServerPatch { headers: Some(headers), ..ServerPatch::default() })
        .unwrap();
    let elsewhere =
        ServerPatch { url: Some("https://other.example/mcp".into()), ..ServerPatch::default() };
    let err = update(&doc, 1, elsewhere.clone()).unwrap_err();
    assert_eq!(err.field(), Field::Headers);
    assert!(err.to_string().contains("enter its headers again"), "{err}");
    assert!(!format!("{err} {err:?}").contains("FAKE"));

    let confirmed = ServerPatch { headers_to_new_origin: true, ..elsewhere.clone() };
    let s = update(&doc, 1, confirmed).unwrap().servers.remove(0);
    assert_eq!(s.headers["Authorization"].expose(), "Bearer FAKE-7");
    let reentered = ServerPatch {
        headers: Some(parse_headers(r#"{"X-Key": "FAKE-8"}"#).unwrap()),
        ..elsewhere
    };
    let s = update(&doc, 1, reentered).unwrap().servers.remove(0);
    assert_eq!(s.headers.keys().collect::<Vec<_>>(), ["X-Key"]);
}

#[test]
fn the_header_box_is_checked_as_the_user_types() {
    assert!(parse_headers("").unwrap().is_empty());
    for (text, says) in [
        (r#"{"Authorization": "Bearer FAKE-4""#, "must be a JSON object"),
        (r#"["FAKE-5"]"#, "expected a map"),
        (r#"{"X-Key": 5}"#, "must be a string"),
        (r#"{"Cookie": "FAKE-6"}"#, "cannot be configured"),
        (r#"{"X-Key": "a", "x-key": "b"}"#, "given twice"),
    ] {
        let e = parse_headers(text).unwrap_err();
        assert!(e.to_string().contains(says), "{text}: {e}");
        assert!(!e.to_string().contains("FAKE"), "{e}");
    }
}

#[test]
fn every_edit_travels_as_tagged_json_and_reads_back() {
    let mut draft = ServerDraft::new("A", "https://a.example/mcp");
    draft.headers = Some([("X-Key".to_owned(), Secret::new("v"))].into());
    draft.timeout_ms = Some(5_000);
    let server =
        apply(&Settings::default(), &SettingsEdit::AddServer { id: id(1), server: draft.clone() })
            .unwrap()
            .servers
            .remove(0);
    let edits = [
        SettingsEdit::SetApiKey { api_key: Some(Secret::new("k")) },
        SettingsEdit::SetApiKey { api_key: None },
        SettingsEdit::SetModel { model: Some("gemini-3.8-flash".into()) },
        SettingsEdit::SetModel { model: None },
        SettingsEdit::SetInstructions { instructions: Some("Be brief.".into()) },
        SettingsEdit::SetInstructions { instructions: None },
        SettingsEdit::AddServer { id: id(1), server: draft.clone() },
        SettingsEdit::UpdateServer {
            id: id(1),
            changes: ServerPatch::between(&ServerDraft::new("B", "https://b.example/"), &draft),
        },
        SettingsEdit::UpdateServer {
            id: id(1),
            changes: ServerPatch {
                timeout_ms: Some(None),
                include_tools: Some(None),
                headers_to_new_origin: true,
                ..ServerPatch::default()
            },
        },
        SettingsEdit::RemoveServer { id: id(1) },
        SettingsEdit::SetTrust { id: id(1), trust: true },
        SettingsEdit::SetEnabledByDefault { id: id(1), enabled: false },
        SettingsEdit::SetLocalNetwork { id: id(1), local_network: true },
        SettingsEdit::SetToolFilters {
            id: id(1),
            include_tools: Some(vec!["a".into()]),
            exclude_tools: vec!["b".into()],
        },
        SettingsEdit::SetToolFilters { id: id(1), include_tools: None, exclude_tools: vec![] },
        SettingsEdit::AllowTool { id: id(1), tool: "echo".into() },
        SettingsEdit::DisallowTool { id: id(1), tool: "echo".into() },
        SettingsEdit::Import {
            servers: vec![server],
            api_key: None,
            model: Some("m".into()),
            instructions: None,
        },
    ];
    let mut tags = std::collections::BTreeSet::new();
    for edit in edits {
        let json = serde_json::to_value(&edit).unwrap();
        tags.insert(json["type"].as_str().unwrap().to_owned());
        assert_eq!(serde_json::from_value::<SettingsEdit>(json.clone()).ok(), Some(edit), "{json}");
    }
    assert_eq!(tags.len(), 13, "every variant is covered: {tags:?}");
}

#[test]
fn an_edit_that_does_not_read_says_where() {
    let cases = [
        (serde_json::json!({"type": "set_trust", "id": "srv_1"}), "missing field `trust`"),
        (
            serde_json::json!({"type": "set_model", "model": 3}),
            "invalid type: integer `3`, expected a string",
        ),
        (
            serde_json::json!({"type": "fly"}),
            "unknown variant `fly`, expected one of `set_api_key`",
        ),
        (serde_json::json!({"id": "srv_1"}), "missing field `type`"),
        (serde_json::json!("set_model"), "invalid type: string"),
    ];
    for (json, says) in cases {
        let err = gemipanel_core::decode::from_value::<SettingsEdit>("an edit", json.clone())
            .unwrap_err()
            .to_string();
        assert!(err.starts_with("an edit: ") && err.contains(says), "{json}: {err}");
    }
}

/// A small deterministic generator, so a failing order can be replayed from its seed.
struct XorShift(u64);

impl XorShift {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
}

/// The popup adds servers and sets their trust, the side panel allows tools on a shared server,
/// a third page changes its tool filters. Each source's edits stay in order (the worker's queue
/// keeps order per sender), the three are interleaved at random, and every effect is there.
#[test]
fn a_thousand_interleaved_edits_from_three_sources_all_land() {
    let shared = id(1);
    let mut popup = Vec::new();
    for n in 0..40u8 {
        let server = ServerDraft::new(format!("popup-{n}"), format!("https://s{n}.example/mcp"));
        popup.push(SettingsEdit::AddServer { id: id(n + 10), server });
        popup.push(SettingsEdit::SetTrust { id: id(n + 10), trust: true });
    }
    let panel: Vec<_> = (0..460)
        .map(|n| SettingsEdit::AllowTool { id: shared.clone(), tool: format!("tool_{n}") })
        .collect();
    let worker: Vec<_> = (0..460u64)
        .map(|n| SettingsEdit::SetToolFilters {
            id: shared.clone(),
            include_tools: None,
            exclude_tools: vec![format!("t{n}")],
        })
        .collect();
    assert_eq!(popup.len() + panel.len() + worker.len(), 1000);

    for seed in [1u64, 42, 0x9e37_79b9_7f4a_7c15] {
        let mut rng = XorShift(seed);
        let mut queues = [popup.iter(), panel.iter(), worker.iter()].map(Iterator::peekable);
        let mut doc = base();
        let mut applied = 0;
        loop {
            let open: Vec<usize> = (0..3).filter(|&q| queues[q].peek().is_some()).collect();
            if open.is_empty() {
                break;
            }
            let q = open[(rng.next() % open.len() as u64) as usize];
            let edit = queues[q].next().unwrap();
            doc = apply(&doc, edit)
                .unwrap_or_else(|e: EditError| panic!("seed {seed}: {edit:?}: {e}"));
            applied += 1;
        }
        assert_eq!(applied, 1000);
        assert_eq!(doc.servers.len(), 41, "seed {seed}");
        assert!(doc.servers.iter().filter(|s| s.name.starts_with("popup-")).all(|s| s.trust));
        let s = doc.server(&shared).unwrap();
        assert_eq!(s.allowed_tools.len(), 460, "seed {seed}");
        assert_eq!(s.exclude_tools, ["t459"], "seed {seed}");
    }
}

/// Arbitrary edits, valid or not, never panic and never leave an invalid document.
#[test]
fn random_edits_never_panic_or_break_the_document() {
    let mut rng = XorShift(7);
    let urls = [
        "https://a.example/",
        "http://127.1/",
        "https://10.0.0.1/",
        "http://x.example/",
        "ftp://a/",
        "",
        "https://u:p@a.example/",
    ];
    let names = ["a", "A", " a", "", "b", "c"];
    let mut doc = base();
    for _ in 0..2000 {
        let n = (rng.next() % 8) as u8;
        let pick = |r: u64, list: &[&str]| list[(r % list.len() as u64) as usize].to_string();
        let edit = match rng.next() % 6 {
            0 => SettingsEdit::AddServer {
                id: id(n),
                server: ServerDraft {
                    local_network: rng.next().is_multiple_of(2),
                    ..ServerDraft::new(pick(rng.next(), &names), pick(rng.next(), &urls))
                },
            },
            1 => SettingsEdit::UpdateServer {
                id: id(n),
                changes: ServerPatch {
                    name: Some(pick(rng.next(), &names)),
                    url: Some(pick(rng.next(), &urls)),
                    headers_to_new_origin: rng.next().is_multiple_of(2),
                    ..ServerPatch::default()
                },
            },
            2 => SettingsEdit::RemoveServer { id: id(n) },
            3 => SettingsEdit::SetLocalNetwork {
                id: id(n),
                local_network: rng.next().is_multiple_of(2),
            },
            4 => SettingsEdit::AllowTool { id: id(n), tool: pick(rng.next(), &names) },
            _ => SettingsEdit::SetApiKey { api_key: Some(Secret::new(pick(rng.next(), &names))) },
        };
        if let Ok(next) = apply(&doc, &edit) {
            gemipanel_core::settings::validate(&next).unwrap();
            doc = next;
        }
    }
}

#[test]
fn a_server_added_without_a_timeout_gets_the_protocol_default_of_30_seconds() {
    // Issue 3: 30 s per request unless the server's settings say otherwise.
    let doc = add(&base(), 2, "a", "https://a.example/mcp");
    assert_eq!(doc.server(&id(2)).unwrap().timeout_ms, 30_000);
    let config = gemipanel_core::mcp::ServerConfig::new("https://a.example/mcp");
    assert_eq!(config.request_timeout.as_millis(), 30_000);
}

#[test]
fn a_client_secret_is_never_shown_to_the_pages_and_survives_a_form_that_did_not_touch_it() {
    use gemipanel_core::settings::{IdentityProvider, OAuthClient, SignInMethod};
    let client = OAuthClient {
        client_id: Some("mine".into()),
        client_secret: Some(Secret::new("FAKE-client-secret")),
        issuer: Some("https://auth.example".into()),
        method: SignInMethod::Enterprise,
        identity_provider: Some(IdentityProvider {
            issuer: "https://idp.example".into(),
            client_id: "gemipanel".into(),
            client_secret: Some(Secret::new("FAKE-idp-secret")),
        }),
        ..OAuthClient::default()
    };
    let doc =
        update(&base(), 1, ServerPatch { oauth: Some(client), ..ServerPatch::default() }).unwrap();
    let shown = doc.for_pages();
    assert!(!serde_json::to_string(&shown).unwrap().contains("FAKE"));
    // The popup's form holds the blank copy; saving another change keeps the secret.
    let opened = ServerDraft::of(shown.server(&id(1)).unwrap());
    let renamed = ServerDraft { name: "renamed".into(), ..opened.clone() };
    let doc = update(&doc, 1, ServerPatch::between(&opened, &renamed)).unwrap();
    let kept = doc.server(&id(1)).unwrap().oauth.client_secret.clone();
    assert_eq!(kept.as_ref().map(Secret::expose), Some("FAKE-client-secret"));
    let provider = doc.server(&id(1)).unwrap().oauth.identity_provider.clone().unwrap();
    assert_eq!(provider.client_secret.as_ref().map(Secret::expose), Some("FAKE-idp-secret"));
    // Changing the id with the blank secret in the form keeps the secret too.
    let mut other = opened.clone();
    other.oauth.client_id = Some("other".into());
    let doc = update(&doc, 1, ServerPatch::between(&opened, &other)).unwrap();
    let oauth = &doc.server(&id(1)).unwrap().oauth;
    assert_eq!(oauth.client_id.as_deref(), Some("other"));
    assert_eq!(oauth.client_secret.as_ref().map(Secret::expose), Some("FAKE-client-secret"));
    // A metadata URL must be https with a path.
    let bad = OAuthClient {
        metadata_url: Some("http://x.example/c.json".into()),
        ..OAuthClient::default()
    };
    let err =
        update(&doc, 1, ServerPatch { oauth: Some(bad), ..ServerPatch::default() }).unwrap_err();
    assert_eq!(err.field(), Field::SignIn);
}

#[test]
fn the_model_is_chosen_or_left_to_the_automatic_default() {
    let chosen = apply(
        &Settings::default(),
        &SettingsEdit::SetModel { model: Some(" gemini-4-argon ".into()) },
    )
    .unwrap();
    assert_eq!(chosen.gemini.model.as_deref(), Some("gemini-4-argon"));
    // Absent, null or blank: back to the automatic default, which the document stores as no model.
    for edit in [
        serde_json::json!({"type": "set_model"}),
        serde_json::json!({"type": "set_model", "model": null}),
        serde_json::json!({"type": "set_model", "model": "  "}),
    ] {
        let edit: SettingsEdit = serde_json::from_value(edit).unwrap();
        let automatic = apply(&chosen, &edit).unwrap();
        assert_eq!(automatic.gemini.model, None);
        assert!(serde_json::to_value(&automatic).unwrap()["gemini"].get("model").is_none());
    }
}

#[test]
fn the_browser_and_pages_keep_trust_always_allow_and_tools_turned_off() {
    let mut doc = base();
    let browser = "browser".to_owned();
    let shop = "page:https://shop.example".to_owned();
    for edit in [
        SettingsEdit::SetSource { source: browser.clone(), change: SourceChange::Trust(true) },
        SettingsEdit::SetSource {
            source: shop.clone(),
            change: SourceChange::AllowTool("add_to_cart".into()),
        },
        SettingsEdit::SetSource {
            source: browser.clone(),
            change: SourceChange::ToolEnabled("screenshot".into(), false),
        },
        SettingsEdit::SetSource {
            source: browser.clone(),
            change: SourceChange::ToolEnabled("open_tab".into(), false),
        },
        SettingsEdit::SetSource {
            source: browser.clone(),
            change: SourceChange::ToolEnabled("screenshot".into(), true),
        },
        SettingsEdit::SetSource {
            source: id(1).as_str().into(),
            change: SourceChange::PageContentCheck(false),
        },
        SettingsEdit::SetSource {
            source: browser.clone(),
            change: SourceChange::PageContentCheck(false),
        },
        SettingsEdit::SetSource {
            source: browser.clone(),
            change: SourceChange::PageContentCheck(true),
        },
    ] {
        doc = apply(&doc, &edit).unwrap_or_else(|e| panic!("{edit:?}: {e}"));
    }
    assert!(doc.source("browser").trust);
    assert_eq!(doc.source("browser").exclude_tools, ["open_tab"]);
    assert!(doc.source(&shop).allowed_tools.contains("add_to_cart"));
    assert!(!doc.source(&shop).trust);
    // A server's own entry answers for it.
    assert!(!doc.source(id(1).as_str()).trust);
    assert!(!doc.confirms_after_page_content(id(1).as_str()));
    assert!(doc.confirms_after_page_content("browser"));
    // Removing the server forgets its opt-out.
    let removed = apply(&doc, &SettingsEdit::RemoveServer { id: id(1) }).unwrap();
    assert!(removed.skip_page_content_check.is_empty());

    for source in
        ["srv_nope", "page:javascript:alert(1)", "page:https://a.example/path", "page:", "browse"]
    {
        let edit =
            SettingsEdit::SetSource { source: source.into(), change: SourceChange::Trust(true) };
        assert!(apply(&doc, &edit).is_err(), "{source}");
    }
    let unknown = SettingsEdit::SetSource {
        source: "srv_nope".into(),
        change: SourceChange::PageContentCheck(false),
    };
    assert!(apply(&doc, &unknown).is_err());
}

#[test]
fn a_private_key_is_a_secret_like_the_others_and_must_be_a_p256_key() {
    use gemipanel_core::settings::{export, ExportOptions, OAuthClient, SignInMethod};
    let pem = "-----BEGIN PRIVATE KEY-----
MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQgv0BAvkftLG1fbmAq
gSlHB+0seRYZjdD0WzUL+TU+VTahRANCAASAJrhgpEVy5o0OXEO0NLMkB2izvBPv
BzsJ5SbTB5WSR9jlbnaowpsP+/nFBeM5yy7hfeUqP4q/pPR9xgyWjh1m
-----END PRIVATE KEY-----";
    let client = OAuthClient {
        client_id: Some("machine".into()),
        private_key: Some(Secret::new(pem)),
        issuer: Some("https://auth.example".into()),
        method: SignInMethod::ClientCredentials,
        ..OAuthClient::default()
    };
    let doc =
        update(&base(), 1, ServerPatch { oauth: Some(client.clone()), ..ServerPatch::default() })
            .unwrap();
    assert!(!serde_json::to_string(&doc.for_pages()).unwrap().contains("MIGHAgEA"));
    let without = export(&doc, ExportOptions { include_secrets: false }).text;
    assert!(!without.contains("MIGHAgEA") && without.contains("client_credentials"), "{without}");
    assert!(export(&doc, ExportOptions { include_secrets: true }).text.contains("MIGHAgEA"));
    // A form that did not touch it keeps it.
    let opened = ServerDraft::of(doc.for_pages().server(&id(1)).unwrap());
    let renamed = ServerDraft { name: "renamed".into(), ..opened.clone() };
    let doc = update(&doc, 1, ServerPatch::between(&opened, &renamed)).unwrap();
    assert_eq!(
        doc.server(&id(1)).unwrap().oauth.private_key.as_ref().map(Secret::expose),
        Some(pem)
    );
    // An RSA key, or client credentials with nothing to prove the client with, are refused.
    for bad in [
        OAuthClient {
            private_key: Some(Secret::new(
                "-----BEGIN PRIVATE KEY-----\nMIICdgIBADANBgkqhkiG9w0BAQEFAASCAmAw\n-----END PRIVATE KEY-----",
            )),
            ..client.clone()
        },
        OAuthClient { private_key: None, ..client.clone() },
        OAuthClient { method: SignInMethod::Enterprise, ..client.clone() },
    ] {
        let err = update(&doc, 1, ServerPatch { oauth: Some(bad), ..ServerPatch::default() })
            .unwrap_err();
        assert_eq!(err.field(), Field::SignIn);
    }
}

#[test]
fn what_is_kept_for_servers_no_longer_configured_is_found() {
    let doc = add(&base(), 2, "a", "https://a.example/mcp");
    let removed = apply(&doc, &SettingsEdit::RemoveServer { id: id(2) }).unwrap();
    let (one, two) = (id(1), id(2));
    let kept = [one.as_str(), two.as_str(), "test_srv_draft", two.as_str()];
    assert_eq!(doc.orphans(kept), ["test_srv_draft"]);
    assert_eq!(removed.orphans(kept), [two.as_str(), "test_srv_draft"]);
    assert!(Settings::default().orphans([]).is_empty());
    assert_eq!(doc.removed_in(&removed), [id(2)]);
    assert!(removed.removed_in(&doc).is_empty());
}

#[test]
fn instructions_for_every_chat_are_set_trimmed_or_removed_and_old_documents_have_none() {
    let set = apply(
        &Settings::default(),
        &SettingsEdit::SetInstructions { instructions: Some("  Answer in Japanese.\n".into()) },
    )
    .unwrap();
    assert_eq!(set.gemini.chosen_instructions(), Some("Answer in Japanese."));
    let stored = serde_json::to_value(&set).unwrap();
    assert_eq!(stored["version"], 6, "an optional field of version 6: no new version");
    assert_eq!(stored["gemini"]["instructions"], "Answer in Japanese.");
    for edit in [
        serde_json::json!({"type": "set_instructions"}),
        serde_json::json!({"type": "set_instructions", "instructions": "   "}),
    ] {
        let edit: SettingsEdit = serde_json::from_value(edit).unwrap();
        let removed = apply(&set, &edit).unwrap();
        assert_eq!(removed.gemini.instructions, None);
        assert!(serde_json::to_value(&removed).unwrap()["gemini"].get("instructions").is_none());
    }
    // A version 6 document written before the field reads as it was.
    let old = serde_json::json!({"version": 6, "gemini": {"api_key": "AIza-x"}, "servers": []});
    let loaded = gemipanel_core::settings::load(&old).unwrap();
    assert_eq!(loaded.settings.gemini.instructions, None);
    assert_eq!(loaded.migrated_from, None);
}
