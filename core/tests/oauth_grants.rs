//! The ways to tokens beside the browser's sign-in window, and DPoP on every one of them, on
//! the recorded TypeScript SDK example moved to public hosts (`support/oauth_world.rs`):
//! client credentials (a secret, a private key), enterprise sign-in (identity provider, token
//! exchange, JWT grant), tokens bound to the driver's DPoP key, and finding the issuer a
//! client the person enters is bound to.

#[path = "support/oauth_world.rs"]
mod world;

use gemipanel_core::mcp::Method;
use gemipanel_core::oauth::enterprise::{self, IdpSession};
use gemipanel_core::oauth::jose;
use gemipanel_core::oauth::{
    Action, ClientOptions, Error, Grant, PreRegistered, Purpose, Randomness, SignIn,
    TokenEndpointAuth,
};
use gemipanel_core::settings::{IdentityProvider, Secret, SignInMethod};
use serde_json::json;
use world::{config, query_of, sdk_example, Page, Route, NOW_MS};

const AUTH: &str = "https://auth.example.com";
const IDP: &str = "https://idp.example.com";
const KEY: &str = "-----BEGIN PRIVATE KEY-----
MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQgv0BAvkftLG1fbmAq
gSlHB+0seRYZjdD0WzUL+TU+VTahRANCAASAJrhgpEVy5o0OXEO0NLMkB2izvBPv
BzsJ5SbTB5WSR9jlbnaowpsP+/nFBeM5yy7hfeUqP4q/pPR9xgyWjh1m
-----END PRIVATE KEY-----";

fn entered(secret: Option<&str>, key: Option<&str>) -> PreRegistered {
    PreRegistered {
        client_id: "machine".into(),
        client_secret: secret.map(Secret::new),
        private_key: key.map(Secret::new),
        issuer: Some(format!("{AUTH}/")),
    }
}

fn sent(form: &[(String, String)], name: &str) -> Option<String> {
    form.iter().find(|(n, _)| n == name).map(|(_, v)| v.clone())
}

#[test]
fn client_credentials_sign_in_with_no_window_with_a_secret_or_a_key() {
    for (secret, key) in [(Some("S3CRET"), None), (None, Some(KEY))] {
        let (mut world, server, challenge) = sdk_example(Page::Close, true);
        let mut setup = config(&server, Some(&challenge));
        setup.client = ClientOptions {
            pre_registered: Some(entered(secret, key)),
            method: SignInMethod::ClientCredentials,
            ..ClientOptions::default()
        };
        let signed_in = world.sign_in(setup).expect("signed in");
        assert!(world.opened.is_empty(), "no window");
        assert!(!world.trail().iter().any(|r| r.ends_with("/register")), "no registration");
        let form = world.form_sent_to(&format!("{AUTH}/token"));
        assert_eq!(sent(&form, "grant_type").as_deref(), Some("client_credentials"));
        assert_eq!(sent(&form, "resource").as_deref(), Some("https://mcp.example.com/mcp"));
        assert_eq!(sent(&form, "scope").as_deref(), Some("mcp:tools"), "no offline_access");
        let credentials = signed_in.credentials;
        assert_eq!(credentials.grant, Grant::ClientCredentials);
        let signed = world.signed.last().expect("a signed request");
        if key.is_some() {
            // RFC 7523 §2.2: the assertion names the client; no id or secret in the form.
            assert_eq!(credentials.client.method, TokenEndpointAuth::PrivateKeyJwt);
            let assertion = signed.assertion.as_ref().expect("an assertion to sign");
            assert_eq!(assertion.client_id, "machine");
            assert_eq!(assertion.audience, format!("{AUTH}/"));
            assert_eq!((sent(&form, "client_id"), sent(&form, "client_secret")), (None, None));
        } else {
            // The server lists client_secret_post.
            assert_eq!(credentials.client.method, TokenEndpointAuth::ClientSecretPost);
            assert!(signed.assertion.is_none());
            assert_eq!(sent(&form, "client_secret").as_deref(), Some("S3CRET"));
        }
    }
}

#[test]
fn client_credentials_without_a_secret_or_key_ask_for_one() {
    let (mut world, server, challenge) = sdk_example(Page::Close, true);
    let mut setup = config(&server, Some(&challenge));
    setup.client = ClientOptions {
        pre_registered: Some(entered(None, None)),
        method: SignInMethod::ClientCredentials,
        ..ClientOptions::default()
    };
    assert_eq!(world.sign_in(setup).unwrap_err(), Error::ClientCredentialsNeedSecret);
    assert!(!world.trail().iter().any(|r| r.ends_with("/token")));
}

/// The SDK example's authorization server, binding tokens to ES256 keys.
fn with_dpop(world: &mut world::World) {
    let metadata = world::fixture("sdk-example/authorization-server.json").replace(
        r#""issuer""#,
        r#""dpop_signing_alg_values_supported":["ES256","EdDSA"],"issuer""#,
    );
    world.get(&format!("{AUTH}/.well-known/oauth-authorization-server"), Route::json(metadata));
}

#[test]
fn tokens_are_bound_to_the_drivers_key_where_the_server_offers_it() {
    let (mut world, server, challenge) = sdk_example(Page::Approve { iss: None }, true);
    with_dpop(&mut world);
    world.post(
        &format!("{AUTH}/token"),
        Route::json(r#"{"access_token":"BOUND","token_type":"DPoP","expires_in":60}"#),
    );
    let mut setup = config(&server, Some(&challenge));
    setup.dpop = Some("THUMBPRINT".into());
    let signed_in = world.sign_in(setup).expect("signed in");
    // The code is bound to the key too (RFC 9449 §10), and the token request proves it.
    assert_eq!(query_of(&world.opened[0]).get("dpop_jkt").map(String::as_str), Some("THUMBPRINT"));
    let token = world.signed.iter().find(|s| s.request.url.ends_with("/token")).unwrap();
    assert!(token.proof);
    assert_eq!(signed_in.credentials.dpop_jkt.as_deref(), Some("THUMBPRINT"));

    // A server that does not offer DPoP: no proof, and a DPoP token it did not ask for is refused.
    let (mut world, server, challenge) = sdk_example(Page::Approve { iss: None }, true);
    world.post(
        &format!("{AUTH}/token"),
        Route::json(r#"{"access_token":"BOUND","token_type":"DPoP"}"#),
    );
    let mut setup = config(&server, Some(&challenge));
    setup.dpop = Some("THUMBPRINT".into());
    let refused = world.sign_in(setup).unwrap_err();
    assert!(matches!(refused, Error::UnsupportedTokenType { .. }), "{refused:?}");
    assert!(!query_of(&world.opened[0]).contains_key("dpop_jkt"));
    assert!(world.signed.iter().all(|s| !s.proof));

    // A server offering DPoP that answers Bearer anyway: a bearer token, kept as one.
    let (mut world, server, challenge) = sdk_example(Page::Approve { iss: None }, true);
    with_dpop(&mut world);
    let mut setup = config(&server, Some(&challenge));
    setup.dpop = Some("THUMBPRINT".into());
    assert_eq!(world.sign_in(setup).expect("signed in").credentials.dpop_jkt, None);
}

fn id_token(nonce: &str, aud: &str) -> String {
    let claims = json!({"iss": IDP, "aud": aud, "sub": "alice", "nonce": nonce, "exp": NOW_MS / 1000 + 3600});
    let input = jose::signing_input(&json!({"alg": "ES256"}), &claims);
    jose::compact(&input, &[1; 64]).unwrap()
}

/// The identity provider of `enterprise_*`: its metadata (OpenID only), its token endpoint
/// answering the code with `id_token`, and the token exchange with an ID-JAG.
fn with_idp(world: &mut world::World, id_token: &str) {
    let metadata = json!({
        "issuer": IDP,
        "authorization_endpoint": format!("{IDP}/authorize"),
        "token_endpoint": format!("{IDP}/token"),
        "code_challenge_methods_supported": ["S256"],
        "grant_types_supported": ["authorization_code", "urn:ietf:params:oauth:grant-type:token-exchange"],
    });
    world
        .get(&format!("{IDP}/.well-known/openid-configuration"), Route::json(metadata.to_string()));
    world.post(
        &format!("{IDP}/token"),
        Route::json(json!({"access_token": "ID-JAG", "id_token": id_token, "issued_token_type": "urn:ietf:params:oauth:token-type:id-jag", "token_type": "N_A"}).to_string()),
    );
}

fn enterprise_options() -> ClientOptions {
    ClientOptions {
        pre_registered: Some(entered(Some("AS-SECRET"), None)),
        method: SignInMethod::Enterprise,
        identity_provider: Some(IdentityProvider {
            issuer: IDP.into(),
            client_id: "gemipanel-at-idp".into(),
            client_secret: None,
        }),
        ..ClientOptions::default()
    }
}

#[test]
fn enterprise_sign_in_goes_through_the_identity_provider_then_the_jwt_grant() {
    let nonce = enterprise::nonce(&[7; 32]);
    let (mut world, server, challenge) = sdk_example(Page::Approve { iss: None }, true);
    with_idp(&mut world, &id_token(&nonce, "gemipanel-at-idp"));
    let mut setup = config(&server, Some(&challenge));
    setup.client = enterprise_options();
    let signed_in = world.sign_in(setup).expect("signed in");
    // One window, the identity provider's, asking for an OpenID sign-in with a nonce.
    assert_eq!(world.opened.len(), 1);
    let page = query_of(&world.opened[0]);
    assert!(world.opened[0].starts_with(&format!("{IDP}/authorize?")));
    assert_eq!(page.get("scope").map(String::as_str), Some("openid"));
    assert_eq!(page.get("nonce"), Some(&nonce));
    assert_eq!(page.get("client_id").map(String::as_str), Some("gemipanel-at-idp"));
    let idp_requests: Vec<_> =
        world.signed.iter().filter(|s| s.request.url == format!("{IDP}/token")).collect();
    assert_eq!(idp_requests.len(), 2, "the code, then the exchange");
    let exchange: Vec<(String, String)> =
        url::form_urlencoded::parse(idp_requests[1].request.body.as_deref().unwrap().as_bytes())
            .into_owned()
            .collect();
    for (name, value) in [
        ("grant_type", "urn:ietf:params:oauth:grant-type:token-exchange"),
        ("requested_token_type", "urn:ietf:params:oauth:token-type:id-jag"),
        ("audience", "https://auth.example.com/"),
        ("resource", "https://mcp.example.com/mcp"),
        ("subject_token_type", "urn:ietf:params:oauth:token-type:id_token"),
        ("client_id", "gemipanel-at-idp"),
    ] {
        assert_eq!(sent(&exchange, name).as_deref(), Some(value), "{name}");
    }
    let grant = world.form_sent_to(&format!("{AUTH}/token"));
    assert_eq!(
        sent(&grant, "grant_type").as_deref(),
        Some("urn:ietf:params:oauth:grant-type:jwt-bearer")
    );
    assert_eq!(sent(&grant, "assertion").as_deref(), Some("ID-JAG"));
    assert_eq!(sent(&grant, "client_secret").as_deref(), Some("AS-SECRET"));
    assert_eq!(signed_in.credentials.grant, Grant::JwtBearer);
    let session = signed_in.idp_session.expect("the identity provider's sign-in is kept");
    assert_eq!((session.issuer.as_str(), session.client_id.as_str()), (IDP, "gemipanel-at-idp"));

    // With that sign-in kept, the next server's tokens come without a window.
    let (mut world, server, challenge) = sdk_example(Page::Close, true);
    with_idp(&mut world, "unused");
    let mut setup = config(&server, Some(&challenge));
    setup.client = enterprise_options();
    setup.idp_session = Some(session);
    world.sign_in(setup).expect("signed in again");
    assert!(world.opened.is_empty());
}

#[test]
fn an_id_token_of_another_sign_in_is_not_exchanged() {
    let (mut world, server, challenge) = sdk_example(Page::Approve { iss: None }, true);
    with_idp(&mut world, &id_token("someone-elses-nonce", "gemipanel-at-idp"));
    let mut setup = config(&server, Some(&challenge));
    setup.client = enterprise_options();
    let refused = world.sign_in(setup).unwrap_err();
    assert_eq!(refused, Error::IdTokenRejected { reason: "nonce".into() });
    assert_eq!(
        world.signed.iter().filter(|s| s.request.url.ends_with("idp.example.com/token")).count(),
        1
    );
    assert!(!world.trail().iter().any(|r| r.starts_with(&format!("POST {AUTH}/token"))));
    let kept = IdpSession {
        issuer: IDP.into(),
        client_id: "gemipanel-at-idp".into(),
        id_token: Secret::new("x"),
        expires_at_ms: NOW_MS + 30_000,
    };
    assert!(!kept.usable(IDP, "gemipanel-at-idp", NOW_MS), "about to expire: not used");
}

#[test]
fn the_issuer_is_found_without_registering_or_signing_in() {
    let (world, server, challenge) = sdk_example(Page::Close, true);
    let mut setup = config(&server, Some(&challenge));
    setup.purpose = Purpose::FindIssuer;
    let mut world = world;
    let mut flow = SignIn::new(setup, Randomness { code_verifier: [0; 32], state: [0; 16] });
    let issuer = loop {
        match flow.poll() {
            Some(Action::Send(request)) => {
                assert_eq!(request.method, Method::Get, "only discovery");
                let response = world.answer(request);
                flow.handle_response(NOW_MS, response);
            }
            Some(Action::IssuerFound(issuer)) => break issuer,
            other => panic!("{other:?}"),
        }
    };
    assert_eq!(issuer, "https://auth.example.com/");
}
