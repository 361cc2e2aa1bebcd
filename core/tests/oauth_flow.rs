//! Sign-in against recorded authorization servers: which requests, in which order, with which
//! parameters, and what is kept at the end.

#[path = "support/oauth_world.rs"]
mod world;

use gemipanel_core::mcp::Method;
use gemipanel_core::oauth::{
    ClientOptions, Credentials, PreRegistered, RegisteredClient, TokenEndpointAuth,
};
use gemipanel_core::settings::Secret;
use world::{config, fixture, query_of, sdk_example, Page, Route, World, NOW_MS, REDIRECT_URI};

#[test]
fn the_sdk_example_as_recorded_signs_in_end_to_end() {
    for public in [false, true] {
        let (mut world, server, challenge) = sdk_example(Page::Approve { iss: None }, public);
        let signed_in = world.sign_in(config(&server, Some(&challenge))).expect("signed in");
        let (mcp, auth) = if public {
            ("https://mcp.example.com", "https://auth.example.com")
        } else {
            ("http://localhost:3000", "http://localhost:3001")
        };
        assert_eq!(
            world.trail(),
            vec![
                format!("GET {mcp}/.well-known/oauth-protected-resource/mcp"),
                format!("GET {auth}/.well-known/oauth-authorization-server"),
                format!("POST {auth}/register"),
                format!("POST {auth}/token"),
            ]
        );
        let page = query_of(&world.opened[0]);
        assert!(world.opened[0].starts_with(&format!("{auth}/authorize?")), "{}", world.opened[0]);
        for (name, value) in [
            ("response_type", "code"),
            ("client_id", "8b840022-1b64-4b22-a374-cce6ea503280"),
            ("redirect_uri", REDIRECT_URI),
            ("code_challenge_method", "S256"),
            ("resource", &format!("{mcp}/mcp")),
            ("scope", "mcp:tools"),
        ] {
            assert_eq!(page.get(name).map(String::as_str), Some(value), "{name}");
        }
        assert_eq!(page["code_challenge"].len(), 43);
        let token_form = world.form_sent_to(&format!("{auth}/token"));
        let sent = |name: &str| token_form.iter().find(|(n, _)| n == name).map(|(_, v)| v.clone());
        assert_eq!(sent("grant_type").as_deref(), Some("authorization_code"));
        assert_eq!(sent("code").as_deref(), Some("code-1"));
        assert_eq!(sent("resource"), Some(format!("{mcp}/mcp")));
        assert_eq!(sent("client_id").as_deref(), Some("8b840022-1b64-4b22-a374-cce6ea503280"));
        assert_eq!(sent("code_verifier").map(|v| v.len()), Some(43));
        assert_eq!(sent("client_secret"), None);

        let registration = &world.requests[2];
        let body: serde_json::Value =
            serde_json::from_str(registration.body.as_deref().unwrap()).unwrap();
        assert_eq!(body["redirect_uris"], serde_json::json!([REDIRECT_URI]));
        assert_eq!(body["application_type"], "native");
        assert_eq!(body["token_endpoint_auth_method"], "none");
        assert_eq!(body["grant_types"], serde_json::json!(["authorization_code", "refresh_token"]));

        let kept = signed_in.credentials;
        assert_eq!(kept.issuer, format!("{auth}/"));
        assert_eq!(kept.resource, format!("{mcp}/mcp"));
        assert_eq!(kept.access_token.expose(), "7a375c9a-f051-4599-84cc-36c0dbcd7cb4");
        assert_eq!(kept.expires_at_ms, Some(NOW_MS + 3_600_000));
        assert_eq!(kept.scopes, vec!["mcp:tools"]);
        assert_eq!(kept.client.method, TokenEndpointAuth::None);
        assert_eq!(kept.token_endpoint, format!("{auth}/token"));
        let registered = signed_in.registered_client.expect("the registration is kept");
        assert_eq!(registered.issuer, format!("{auth}/"));
        assert_eq!(signed_in.retired_issuer, None);
    }
}

#[test]
fn discovery_follows_the_specified_order_through_an_issuer_with_a_path() {
    let mut world = World::new(Page::Approve { iss: Some("http://localhost:4001/tenant1".into()) });
    world
        .get(
            "http://localhost:4000/custom/metadata/location.json",
            Route::json(fixture("conformance-tenant/protected-resource.json")),
        )
        .get(
            "http://localhost:4001/tenant1/.well-known/openid-configuration",
            Route::json(fixture("conformance-tenant/openid-configuration.json")),
        )
        .post("http://localhost:4001/tenant1/register", Route::json(r#"{"client_id":"c1"}"#))
        .post(
            "http://localhost:4001/tenant1/token",
            Route::json(r#"{"access_token":"t","token_type":"Bearer"}"#),
        );
    let challenge = fixture("conformance-tenant/www-authenticate.txt");
    let signed_in = world.sign_in(config("http://localhost:4000/mcp", Some(&challenge))).unwrap();
    assert_eq!(
        world.trail(),
        vec![
            "GET http://localhost:4000/custom/metadata/location.json",
            "GET http://localhost:4001/.well-known/oauth-authorization-server/tenant1",
            "GET http://localhost:4001/.well-known/openid-configuration/tenant1",
            "GET http://localhost:4001/tenant1/.well-known/openid-configuration",
            "POST http://localhost:4001/tenant1/register",
            "POST http://localhost:4001/tenant1/token",
        ]
    );
    assert_eq!(signed_in.credentials.issuer, "http://localhost:4001/tenant1");
    assert_eq!(signed_in.credentials.expires_at_ms, None);
    // No scope anywhere: the parameter is left out.
    assert!(!query_of(&world.opened[0]).contains_key("scope"));
}

#[test]
fn without_a_header_the_well_known_locations_are_tried_path_first() {
    let (mut world, server, _) = sdk_example(Page::Approve { iss: None }, true);
    // The document moves from the path-inserted location to the root.
    let document = world
        .routes
        .remove("GET https://mcp.example.com/.well-known/oauth-protected-resource/mcp")
        .unwrap();
    world.get("https://mcp.example.com/.well-known/oauth-protected-resource", document);
    world.sign_in(config(&server, Some("Bearer"))).expect("signed in");
    assert_eq!(
        &world.trail()[..3],
        [
            "GET https://mcp.example.com/.well-known/oauth-protected-resource/mcp",
            "GET https://mcp.example.com/.well-known/oauth-protected-resource",
            "GET https://auth.example.com/.well-known/oauth-authorization-server",
        ]
    );
}

#[test]
fn a_2025_03_26_server_uses_its_origin_then_the_fixed_paths() {
    // Metadata at the origin, issuer with a path on the same origin (conformance 0.1.16).
    let mut world = World::new(Page::Approve { iss: None });
    let metadata = fixture("sdk-example/authorization-server.json")
        .replace("http://localhost:3001/\"", "http://localhost:3000/oauth\"")
        .replace("http://localhost:3001/", "http://localhost:3000/oauth/");
    world
        .get("http://localhost:3000/.well-known/oauth-authorization-server", Route::json(metadata))
        .post("http://localhost:3000/oauth/register", Route::json(r#"{"client_id":"c1"}"#))
        .post("http://localhost:3000/oauth/token", Route::json(r#"{"access_token":"t"}"#));
    let signed_in = world.sign_in(config("http://localhost:3000/mcp", None)).unwrap();
    assert_eq!(signed_in.credentials.issuer, "http://localhost:3000/oauth");
    assert_eq!(signed_in.credentials.resource, "http://localhost:3000/mcp");
    assert_eq!(
        world.trail()[..3],
        [
            "GET http://localhost:3000/.well-known/oauth-protected-resource/mcp",
            "GET http://localhost:3000/.well-known/oauth-protected-resource",
            "GET http://localhost:3000/.well-known/oauth-authorization-server",
        ]
    );

    // No metadata at all: /authorize, /token, /register at the origin.
    let mut world = World::new(Page::Approve { iss: None });
    world
        .post(
            "http://localhost:3000/register",
            Route::json(r#"{"client_id":"c1","client_secret":"s"}"#),
        )
        .post("http://localhost:3000/token", Route::json(r#"{"access_token":"t"}"#));
    let signed_in = world.sign_in(config("http://localhost:3000/mcp", None)).unwrap();
    assert!(world.opened[0].starts_with("http://localhost:3000/authorize?"));
    assert_eq!(signed_in.credentials.issuer, "http://localhost:3000");
    // A secret without metadata to say how to use it: HTTP Basic, RFC 8414's default.
    assert_eq!(signed_in.credentials.client.method, TokenEndpointAuth::ClientSecretBasic);
    let token = world.requests.last().unwrap();
    assert_eq!(token.header("Authorization"), Some("Basic YzE6cw=="));
}

#[test]
fn client_identity_in_the_specified_order() {
    let server_metadata = |extra: &str| {
        fixture("sdk-example/authorization-server.json").replacen('{', &format!("{{{extra}"), 1)
    };
    struct Case {
        name: &'static str,
        extra_metadata: &'static str,
        client: ClientOptions,
        registered: bool,
        expect_client_id: &'static str,
        expect_register: bool,
        expect_method: TokenEndpointAuth,
    }
    let cimd = "https://gemipanel.example/oauth/client.json";
    let cases = [
        Case {
            name: "entered id and secret beat everything",
            extra_metadata: r#""client_id_metadata_document_supported":true,"#,
            client: ClientOptions {
                pre_registered: Some(PreRegistered {
                    client_id: "mine".into(),
                    client_secret: Some(Secret::new("s3cret")),
                    private_key: None,
                    issuer: Some("https://auth.example.com".into()),
                }),
                metadata_document_url: Some(cimd.into()),
                ..ClientOptions::default()
            },
            registered: true,
            expect_client_id: "mine",
            expect_register: false,
            // The server lists client_secret_post and none: post it is.
            expect_method: TokenEndpointAuth::ClientSecretPost,
        },
        Case {
            name: "a client metadata document when the server takes them",
            extra_metadata: r#""client_id_metadata_document_supported":true,"#,
            client: ClientOptions {
                pre_registered: None,
                metadata_document_url: Some(cimd.into()),
                ..ClientOptions::default()
            },
            registered: true,
            expect_client_id: cimd,
            expect_register: false,
            expect_method: TokenEndpointAuth::None,
        },
        Case {
            name: "a document URL is not used where the server does not take it",
            extra_metadata: "",
            client: ClientOptions {
                pre_registered: None,
                metadata_document_url: Some(cimd.into()),
                ..ClientOptions::default()
            },
            registered: true,
            expect_client_id: "kept-before",
            expect_register: false,
            expect_method: TokenEndpointAuth::None,
        },
        Case {
            name: "a registration kept for this issuer",
            extra_metadata: "",
            client: ClientOptions::default(),
            registered: true,
            expect_client_id: "kept-before",
            expect_register: false,
            expect_method: TokenEndpointAuth::None,
        },
        Case {
            name: "a new registration",
            extra_metadata: "",
            client: ClientOptions::default(),
            registered: false,
            expect_client_id: "8b840022-1b64-4b22-a374-cce6ea503280",
            expect_register: true,
            expect_method: TokenEndpointAuth::None,
        },
    ];
    for case in cases {
        let (mut world, server, challenge) = sdk_example(Page::Approve { iss: None }, true);
        world.get(
            "https://auth.example.com/.well-known/oauth-authorization-server",
            Route::json(server_metadata(case.extra_metadata)),
        );
        let mut setup = config(&server, Some(&challenge));
        setup.client = case.client;
        if case.registered {
            setup.registered_clients.push(RegisteredClient {
                issuer: "https://auth.example.com/".into(),
                redirect_uri: REDIRECT_URI.into(),
                registered_at_ms: 0,
                information: serde_json::from_str(r#"{"client_id":"kept-before"}"#).unwrap(),
            });
        }
        let signed_in = world.sign_in(setup).unwrap_or_else(|e| panic!("{}: {e}", case.name));
        assert_eq!(query_of(&world.opened[0])["client_id"], case.expect_client_id, "{}", case.name);
        let registered = world.trail().iter().any(|r| r.ends_with("/register"));
        assert_eq!(registered, case.expect_register, "{}", case.name);
        assert_eq!(signed_in.registered_client.is_some(), case.expect_register, "{}", case.name);
        assert_eq!(signed_in.credentials.client.method, case.expect_method, "{}", case.name);
        if case.expect_method == TokenEndpointAuth::ClientSecretPost {
            let form = world.form_sent_to("https://auth.example.com/token");
            assert!(form.contains(&("client_secret".into(), "s3cret".into())), "{}", case.name);
        }
    }
}

fn previous(issuer: &str, scopes: &[&str]) -> Credentials {
    Credentials {
        server_url: "https://mcp.example.com/mcp".into(),
        issuer: issuer.into(),
        resource: "https://mcp.example.com/mcp".into(),
        access_token: Secret::new("old"),
        refresh_token: None,
        expires_at_ms: None,
        issued_at_ms: None,
        scopes: scopes.iter().map(|s| s.to_string()).collect(),
        requested_scopes: scopes.iter().map(|s| s.to_string()).collect(),
        token_endpoint: format!("{issuer}token"),
        revocation_endpoint: None,
        client: gemipanel_core::oauth::ClientAuth {
            client_id: "old-client".into(),
            client_secret: None,
            method: TokenEndpointAuth::None,
            private_key: None,
        },
        dpop_jkt: None,
        grant: Default::default(),
    }
}

#[test]
fn a_step_up_asks_for_the_union_and_a_moved_server_retires_the_old_issuer() {
    let step_up = r#"Bearer error="insufficient_scope", scope="files:write", resource_metadata="https://mcp.example.com/.well-known/oauth-protected-resource/mcp""#;
    let (mut world, server, _) = sdk_example(Page::Approve { iss: None }, true);
    let mut step_up_config = config(&server, Some(step_up));
    step_up_config.previous =
        Some(previous("https://auth.example.com/", &["mcp:tools", "files:read"]));
    let signed_in = world.sign_in(step_up_config).unwrap();
    assert_eq!(query_of(&world.opened[0])["scope"], "mcp:tools files:read files:write");
    assert_eq!(signed_in.retired_issuer, None);

    let (mut world, server, challenge) = sdk_example(Page::Approve { iss: None }, true);
    let mut config = config(&server, Some(&challenge));
    config.previous = Some(previous("https://old-auth.example.com/", &["legacy:scope"]));
    let signed_in = world.sign_in(config).unwrap();
    assert_eq!(signed_in.retired_issuer.as_deref(), Some("https://old-auth.example.com/"));
    // Scopes granted by another server are not carried over.
    assert_eq!(query_of(&world.opened[0])["scope"], "mcp:tools");
    assert!(signed_in.registered_client.is_some(), "registered anew at the new issuer");
}

/// OpenID Connect Core §11: `offline_access` counts only with `prompt=consent`; without it
/// oidc-provider drops the scope and issues no refresh token (seen in tests/tests/oauth_oidc.rs).
#[test]
fn offline_access_is_asked_for_only_when_offered_and_with_consent() {
    for (offered, expected) in [(true, "mcp:tools offline_access"), (false, "mcp:tools")] {
        let (mut world, server, challenge) = sdk_example(Page::Approve { iss: None }, true);
        let scopes = if offered { r#"["mcp:tools","offline_access"]"# } else { r#"["mcp:tools"]"# };
        let metadata = fixture("sdk-example/authorization-server.json").replace(
            r#""scopes_supported":["mcp:tools"]"#,
            &format!(r#""scopes_supported":{scopes}"#),
        );
        world.get(
            "https://auth.example.com/.well-known/oauth-authorization-server",
            Route::json(metadata),
        );
        world.sign_in(config(&server, Some(&challenge))).unwrap();
        let query = query_of(&world.opened[0]);
        assert_eq!(query["scope"], expected);
        let prompt = if offered { Some("consent") } else { None };
        assert_eq!(query.get("prompt").map(String::as_str), prompt);
    }
}

#[test]
fn the_issuer_in_the_answer_is_checked_as_rfc_9207_says() {
    // (promised in metadata, iss in the answer) → signed in?
    let issuer = "https://auth.example.com/";
    let cases: [(bool, Option<&str>, bool); 6] = [
        (true, Some(issuer), true),
        (true, None, false),
        (false, None, true),
        (false, Some(issuer), true),
        (false, Some("https://evil.example.com"), false),
        (true, Some("https://auth.example.com"), false), // no normalisation
    ];
    for (promised, iss, ok) in cases {
        let (mut world, server, challenge) =
            sdk_example(Page::Approve { iss: iss.map(str::to_owned) }, true);
        let metadata = fixture("sdk-example/authorization-server.json").replacen(
            '{',
            &format!(r#"{{"authorization_response_iss_parameter_supported":{promised},"#),
            1,
        );
        world.get(
            "https://auth.example.com/.well-known/oauth-authorization-server",
            Route::json(metadata),
        );
        let outcome = world.sign_in(config(&server, Some(&challenge)));
        assert_eq!(outcome.is_ok(), ok, "promised {promised}, iss {iss:?}: {outcome:?}");
        let exchanged = world.trail().iter().any(|r| r.ends_with("/token"));
        assert_eq!(exchanged, ok, "the code goes to the token endpoint only when accepted");
    }
}

#[test]
fn a_registration_is_used_only_with_its_own_issuer_redirect_and_unexpired_secret() {
    let information = |expires: u64| {
        serde_json::from_str(&format!(
            r#"{{"client_id":"kept","client_secret":"s","client_secret_expires_at":{expires}}}"#
        ))
        .unwrap()
    };
    let cases = [
        ("https://auth.example.com/", REDIRECT_URI, 0, true),
        ("https://auth.example.com/", REDIRECT_URI, NOW_MS / 1000 + 60, true),
        ("https://auth.example.com/", REDIRECT_URI, NOW_MS / 1000 - 60, false),
        ("https://other.example.com/", REDIRECT_URI, 0, false),
        ("https://auth.example.com/", "https://elsewhere.example/cb", 0, false),
    ];
    for (issuer, redirect, expires, reused) in cases {
        let (mut world, server, challenge) = sdk_example(Page::Approve { iss: None }, true);
        let mut setup = config(&server, Some(&challenge));
        setup.registered_clients.push(RegisteredClient {
            issuer: issuer.into(),
            redirect_uri: redirect.into(),
            registered_at_ms: 0,
            information: information(expires),
        });
        world.sign_in(setup).unwrap();
        let client_id = &query_of(&world.opened[0])["client_id"];
        assert_eq!(client_id == "kept", reused, "{issuer} {redirect} {expires}");
    }
}

#[test]
fn the_token_endpoint_answers_that_are_refusals() {
    // The SDK example answers an unknown code with HTTP 500 and an OAuth error body.
    let (mut world, server, challenge) = sdk_example(Page::Approve { iss: None }, true);
    world.post(
        "https://auth.example.com/token",
        Route::status(500, fixture("sdk-example/token-error.json")),
    );
    let error = world.sign_in(config(&server, Some(&challenge))).unwrap_err();
    assert_eq!(
        error.to_string(),
        "the token endpoint refused (HTTP 500): server_error (Internal Server Error)"
    );
    assert!(error.needs_sign_in());
    let _ = Method::Get;
}
