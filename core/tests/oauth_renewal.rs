//! Keeping a sign-in alive: refresh ahead of expiry and after a 401, rotation, revocation, and
//! what one refused request does next.

use gemipanel_core::mcp::{HttpResponse, Method};
use gemipanel_core::oauth::renewal::{
    refresh_request, refreshed, revocation_requests, revocation_result,
};
use gemipanel_core::oauth::{
    ClientAuth, Credentials, Error, Reaction, Recovery, TokenEndpointAuth,
};
use gemipanel_core::settings::Secret;

const NOW: u64 = 1_800_000_000_000;

fn credentials(method: TokenEndpointAuth, refresh: Option<&str>) -> Credentials {
    Credentials {
        server_url: "https://mcp.example.com/mcp".into(),
        issuer: "https://auth.example.com".into(),
        resource: "https://mcp.example.com/mcp".into(),
        access_token: Secret::new("ACCESS-1"),
        refresh_token: refresh.map(Secret::new),
        expires_at_ms: Some(NOW + 3_600_000),
        issued_at_ms: Some(NOW),
        scopes: vec!["a".into()],
        requested_scopes: vec!["a".into()],
        token_endpoint: "https://auth.example.com/token".into(),
        revocation_endpoint: Some("https://auth.example.com/revoke".into()),
        client: ClientAuth {
            client_id: "client".into(),
            client_secret: (method != TokenEndpointAuth::None).then(|| Secret::new("SECRET")),
            method,
            private_key: None,
        },
        dpop_jkt: None,
        grant: Default::default(),
    }
}

fn answer(status: u16, body: &str) -> HttpResponse<Vec<u8>> {
    HttpResponse { status, headers: Vec::new(), body: body.as_bytes().to_vec() }
}

fn form(body: &Option<String>) -> Vec<(String, String)> {
    url::form_urlencoded::parse(body.as_deref().unwrap_or_default().as_bytes())
        .into_owned()
        .collect()
}

#[test]
fn refresh_is_due_five_minutes_before_expiry() {
    let kept = credentials(TokenEndpointAuth::None, Some("R"));
    let expiry = NOW + 3_600_000;
    for (now, due, expired) in [
        (NOW, false, false),
        (expiry - 5 * 60_000 - 1, false, false),
        (expiry - 5 * 60_000, true, false),
        (expiry - 1, true, false),
        (expiry, true, true),
    ] {
        assert_eq!(kept.refresh_due(now), due, "{now}");
        assert_eq!(kept.expired(now), expired, "{now}");
    }
    let forever = Credentials { expires_at_ms: None, ..kept };
    assert!(!forever.refresh_due(u64::MAX) && !forever.expired(u64::MAX));
}

#[test]
fn a_short_lived_token_is_refreshed_in_the_second_half_of_its_life() {
    // Five minutes of life (Keycloak's default): not refreshed before every request.
    let short = Credentials {
        expires_at_ms: Some(NOW + 300_000),
        ..credentials(TokenEndpointAuth::None, Some("R"))
    };
    assert!(!short.refresh_due(NOW));
    assert!(!short.refresh_due(NOW + 149_999));
    assert!(short.refresh_due(NOW + 150_000));
    // Kept by an older version, without the issue time: five minutes ahead, as before.
    let old = Credentials { issued_at_ms: None, ..short };
    assert!(old.refresh_due(NOW));
}

#[test]
fn the_refresh_request_carries_the_resource_and_the_client_authentication() {
    for (method, basic, body_id, body_secret) in [
        (TokenEndpointAuth::None, false, true, false),
        (TokenEndpointAuth::ClientSecretPost, false, true, true),
        (TokenEndpointAuth::ClientSecretBasic, true, false, false),
    ] {
        let signed = refresh_request(&credentials(method, Some("REFRESH-1"))).unwrap();
        assert!(!signed.proof && signed.assertion.is_none(), "a bearer token, a secret");
        let request = signed.request;
        assert_eq!(request.method, Method::Post);
        assert_eq!(request.url, "https://auth.example.com/token");
        let sent = form(&request.body);
        let has = |name: &str, value: &str| sent.contains(&(name.into(), value.into()));
        assert!(has("grant_type", "refresh_token"));
        assert!(has("refresh_token", "REFRESH-1"));
        assert!(has("resource", "https://mcp.example.com/mcp"));
        assert_eq!(has("client_id", "client"), body_id, "{method:?}");
        assert_eq!(has("client_secret", "SECRET"), body_secret, "{method:?}");
        let authorization = request.header("Authorization");
        assert_eq!(authorization == Some("Basic Y2xpZW50OlNFQ1JFVA=="), basic, "{method:?}");
        assert!(!format!("{request:?}").contains("REFRESH-1"), "Debug leaves the body out");
    }
    assert_eq!(
        refresh_request(&credentials(TokenEndpointAuth::None, None)).unwrap_err(),
        Error::NoRefreshToken
    );
}

#[test]
fn refreshed_tokens_rotate_or_stay() {
    let kept = credentials(TokenEndpointAuth::None, Some("REFRESH-1"));
    let rotated = refreshed(
        &kept,
        NOW,
        &answer(200, r#"{"access_token":"ACCESS-2","token_type":"Bearer","expires_in":600,"refresh_token":"REFRESH-2","scope":"a b"}"#),
    )
    .unwrap();
    assert_eq!(rotated.access_token.expose(), "ACCESS-2");
    assert_eq!(rotated.refresh_token.as_ref().map(Secret::expose), Some("REFRESH-2"));
    assert_eq!(rotated.expires_at_ms, Some(NOW + 600_000));
    assert_eq!(rotated.scopes, vec!["a", "b"]);
    assert_eq!(rotated.requested_scopes, kept.requested_scopes);

    let kept_refresh =
        refreshed(&kept, NOW, &answer(200, r#"{"access_token":"ACCESS-3"}"#)).unwrap();
    assert_eq!(kept_refresh.refresh_token.as_ref().map(Secret::expose), Some("REFRESH-1"));
    assert_eq!(kept_refresh.expires_at_ms, None, "no lifetime given: none assumed");
    assert_eq!(kept_refresh.scopes, kept.scopes);

    // A revoked refresh token: "needs sign-in", with the server's reason.
    let refused = refreshed(
        &kept,
        NOW,
        &answer(400, r#"{"error":"invalid_grant","error_description":"revoked"}"#),
    )
    .unwrap_err();
    assert!(refused.needs_sign_in());
    assert_eq!(
        refused.to_string(),
        "the token endpoint refused (HTTP 400): invalid_grant (revoked)"
    );
    let moved = refreshed(&kept, NOW, &answer(307, "")).unwrap_err();
    assert!(matches!(moved, Error::Redirected { status: 307, .. }), "{moved:?}");
}

#[test]
fn sign_out_revokes_the_refresh_token_then_the_access_token() {
    let kept = credentials(TokenEndpointAuth::ClientSecretPost, Some("REFRESH-1"));
    let requests = revocation_requests(&kept);
    let sent: Vec<_> = requests.iter().map(|r| form(&r.request.body)).collect();
    assert_eq!(sent.len(), 2);
    assert!(sent[0].contains(&("token".into(), "REFRESH-1".into())));
    assert!(sent[0].contains(&("token_type_hint".into(), "refresh_token".into())));
    assert!(sent[1].contains(&("token".into(), "ACCESS-1".into())));
    assert!(sent[1].contains(&("client_secret".into(), "SECRET".into())));
    assert!(requests.iter().all(|r| r.request.url == "https://auth.example.com/revoke"));

    let no_endpoint = Credentials { revocation_endpoint: None, ..kept };
    assert!(revocation_requests(&no_endpoint).is_empty());

    let url = "https://auth.example.com/revoke";
    assert_eq!(revocation_result(url, &answer(200, "")), Ok(()));
    let refused = revocation_result(url, &answer(400, r#"{"error":"unsupported_token_type"}"#));
    assert!(matches!(refused, Err(Error::TokenRefused { status: 400, .. })), "{refused:?}");
}

#[test]
fn a_refused_request_refreshes_once_signs_in_once_and_steps_up_twice() {
    let server = "https://mcp.example.com/mcp";
    let with_refresh = credentials(TokenEndpointAuth::None, Some("R"));
    let without_refresh = credentials(TokenEndpointAuth::None, None);
    let step_up = r#"Bearer error="insufficient_scope", scope="a b""#;

    // (status, header, credentials) in order, with the reaction each gets.
    type Row<'a> = (u16, Option<&'a str>, Option<&'a Credentials>, &'a str);
    let table: &[(&str, &[Row])] = &[
        (
            "a first 401 without credentials signs in; a second gives up",
            &[(401, None, None, "sign in"), (401, None, Some(&without_refresh), "give up: still")],
        ),
        (
            "with a refresh token: refresh first, then sign in, then give up",
            &[
                (401, None, Some(&with_refresh), "refresh"),
                (401, None, Some(&with_refresh), "sign in"),
                (401, None, Some(&with_refresh), "give up: still"),
            ],
        ),
        (
            "insufficient scope steps up twice, then gives up",
            &[
                (403, Some(step_up), Some(&without_refresh), "step up"),
                (403, Some(step_up), Some(&without_refresh), "step up"),
                (403, Some(step_up), Some(&without_refresh), "give up: scope"),
            ],
        ),
        (
            "a 403 about something else gives up at once",
            &[(403, Some("Bearer"), None, "give up: forbidden")],
        ),
        (
            "other statuses are not about sign-in",
            &[(500, None, None, "none"), (404, None, None, "none")],
        ),
    ];
    for (name, rows) in table {
        let mut recovery = Recovery::default();
        for (status, header, kept, expected) in rows.iter() {
            let reaction = recovery.react(server, *status, *header, *kept);
            let seen = match &reaction {
                None => "none",
                Some(Reaction::Refresh) => "refresh",
                Some(Reaction::SignIn) => "sign in",
                Some(Reaction::StepUp) => "step up",
                Some(Reaction::GiveUp(Error::StillUnauthorized { .. })) => "give up: still",
                Some(Reaction::GiveUp(Error::InsufficientScope { scopes, .. })) => {
                    assert_eq!(scopes, &["a", "b"]);
                    "give up: scope"
                }
                Some(Reaction::GiveUp(Error::Forbidden { .. })) => "give up: forbidden",
                Some(other) => panic!("{name}: {other:?}"),
            };
            assert_eq!(seen, *expected, "{name}");
        }
    }

    let mut recovery = Recovery::default();
    assert_eq!(recovery.react(server, 401, None, Some(&with_refresh)), Some(Reaction::Refresh));
    assert_eq!(recovery.refresh_failed(server), Reaction::SignIn);
    assert!(matches!(recovery.refresh_failed(server), Reaction::GiveUp(_)));
}

#[test]
fn stored_credentials_round_trip_and_never_show_their_tokens() {
    let kept = credentials(TokenEndpointAuth::ClientSecretBasic, Some("REFRESH-1"));
    let stored = serde_json::to_string(&kept).unwrap();
    let back: Credentials = serde_json::from_str(&stored).unwrap();
    assert_eq!(back, kept);
    let debug = format!("{kept:?}");
    for secret in ["ACCESS-1", "REFRESH-1", "SECRET"] {
        assert!(!debug.contains(secret), "{debug}");
    }
    assert_eq!(kept.authorization(), "Bearer ACCESS-1");
}

#[test]
fn debug_output_leaves_out_the_server_urls_query() {
    let kept = Credentials {
        server_url: "https://mcp.example.com/mcp?api_key=KEY-IN-URL".into(),
        ..credentials(TokenEndpointAuth::None, None)
    };
    let debug = format!("{kept:?}");
    assert!(!debug.contains("KEY-IN-URL") && debug.contains("mcp.example.com/mcp"), "{debug}");
}
