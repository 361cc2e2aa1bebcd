//! Signing in through core::oauth against `oidc-provider`, an OpenID-certified authorization
//! server, in front of a test MCP server on the official SDK that checks every token
//! (`fixtures/oidc/server.mjs`). A headless person fills the provider's login and consent pages
//! ([`DevPages`]); what the servers saw is read back from the fixture ([`Admin`]).

use gemipanel_core::mcp::{Client, ServerConfig};
use gemipanel_core::oauth::{self, ClientOptions, TokenEndpointAuth};
use gemipanel_core::settings::Secret;
use gemipanel_tests::oauth::{
    authorized, Authorizer, Failure, Interaction, OAuthHost, REDIRECT_URI,
};
use gemipanel_tests::oidc::{Admin, DevPages, Event};
use gemipanel_tests::servers::{Kind, Oidc};
use gemipanel_tests::{NativeHost, TestServer};
use serde_json::json;

/// A running fixture with a client and an authorizer whose pages a headless person fills.
struct Setup {
    server: TestServer,
    client: Client<NativeHost>,
    host: OAuthHost,
    auth: Authorizer,
    pages: DevPages,
    admin: Admin,
}

impl Setup {
    fn start(oidc: Oidc) -> Setup {
        Setup::start_with(oidc, REDIRECT_URI)
    }

    fn start_with(oidc: Oidc, redirect_uri: &str) -> Setup {
        let server = TestServer::start(Kind::Oidc(oidc));
        let config = ServerConfig::new(server.url());
        let pages = DevPages::new("alice");
        let host = OAuthHost::with_pages(pages.clone());
        let authorization = config.authorization.clone();
        let auth = Authorizer::new(
            &server.url(),
            ClientOptions::default(),
            redirect_uri,
            authorization,
            None,
            None,
        );
        let client = Client::new(NativeHost::default(), config);
        let admin = Admin::new(&server.url(), &server.issuer().expect("an issuer"));
        Setup { server, client, host, auth, pages, admin }
    }

    fn issuer(&self) -> String {
        self.server.issuer().expect("an issuer")
    }

    /// A tool call through the authorizer, as from a click (sign-in allowed): its text.
    async fn call(&self, tool: &str, arguments: serde_json::Value) -> Result<String, Failure> {
        self.call_as(Interaction::Allowed, tool, arguments).await
    }

    async fn call_as(
        &self,
        interaction: Interaction,
        tool: &str,
        arguments: serde_json::Value,
    ) -> Result<String, Failure> {
        let call = || self.client.call_tool(tool, arguments.clone(), &(), None);
        authorized(&self.auth, &self.host, interaction, call).await.map(|result| result.text())
    }

    /// `whoami`: the subject the MCP server read off the token.
    async fn whoami(&self) -> Result<String, Failure> {
        self.call("whoami", json!({})).await
    }

    async fn tool_names(&self) -> Vec<String> {
        let list = || self.client.list_tools();
        let tools = authorized(&self.auth, &self.host, Interaction::Allowed, list).await;
        let mut names: Vec<_> = tools.expect("tools/list").into_iter().map(|t| t.name).collect();
        names.sort_unstable();
        names
    }

    /// How many sign-ins (authorization pages) there were.
    fn sign_ins(&self) -> u32 {
        self.host.kept().pages.get()
    }

    fn registrations(&self) -> usize {
        self.host.kept().registered.borrow().len()
    }

    fn credentials(&self) -> oauth::Credentials {
        self.auth.credentials().expect("signed in")
    }
}

fn count(events: &[Event], wanted: impl Fn(&Event) -> bool) -> usize {
    events.iter().filter(|e| wanted(e)).count()
}

#[tokio::test]
async fn signs_in_through_the_login_and_consent_pages_then_uses_the_tools() {
    let setup = Setup::start(Oidc::default());

    // Without a token: 401 with the RFC 9728 metadata and the scope the server needs.
    let refused = setup.client.connect().await.expect_err("sign-in is required");
    assert_eq!(refused.status(), Some(401));
    let challenge = refused.www_authenticate().expect("a challenge").to_owned();
    assert!(challenge.contains("resource_metadata=\""), "{challenge}");
    assert!(challenge.contains("scope=\"mcp:tools\""), "{challenge}");

    let connect = || setup.client.connect();
    let connected = authorized(&setup.auth, &setup.host, Interaction::Allowed, connect).await;
    connected.expect("connects once signed in");
    assert_eq!(setup.sign_ins(), 1);
    assert_eq!(setup.pages.prompts(), ["login", "consent"]);
    let consent = &setup.pages.seen()[1].text;
    assert!(consent.contains(&setup.server.url()) && consent.contains("mcp:tools"), "{consent}");

    assert_eq!(setup.tool_names().await, ["admin_report", "echo", "whoami"]);
    assert_eq!(setup.whoami().await.expect("whoami"), "alice");
    let echo = setup.call("echo", json!({"message": "hi"})).await.expect("echo");
    assert_eq!(echo, "Echo: hi");
    assert_eq!(setup.sign_ins(), 1, "one sign-in serves every later request");

    let credentials = setup.credentials();
    assert_eq!(credentials.issuer, setup.issuer());
    assert_eq!(credentials.resource, setup.server.url());
    assert_eq!(credentials.scopes, ["mcp:tools"]);
    assert_eq!(credentials.requested_scopes, ["mcp:tools", "offline_access"]);
    assert!(credentials.can_refresh(), "offline_access brought a refresh token");
    assert_eq!(credentials.client.method, TokenEndpointAuth::None);
    let revocation = format!("{}/token/revocation", setup.issuer());
    assert_eq!(credentials.revocation_endpoint.as_deref(), Some(revocation.as_str()));

    // What the provider and the MCP server saw.
    let events = setup.admin.events().await;
    let registrations: Vec<_> = events
        .iter()
        .filter_map(|e| match e {
            Event::Registration { status, application_type, redirect_uris, .. } => {
                Some((*status, application_type.clone(), redirect_uris.clone()))
            }
            _ => None,
        })
        .collect();
    assert_eq!(
        registrations,
        [(201, Some("native".into()), Some(vec![REDIRECT_URI.to_owned()]))],
        "one registration"
    );
    let authorization = events
        .iter()
        .find(|e| matches!(e, Event::Authorization { .. }))
        .expect("an authorization request");
    let Event::Authorization {
        scope,
        resource,
        code_challenge_method,
        has_code_challenge,
        has_state,
        ..
    } = authorization
    else {
        unreachable!()
    };
    assert_eq!(scope.as_deref(), Some("mcp:tools offline_access"));
    assert_eq!(resource.as_deref(), Some(setup.server.url().as_str()));
    assert_eq!(code_challenge_method.as_deref(), Some("S256"));
    assert!(*has_code_challenge && *has_state);
    let exchange = events.iter().find(|e| e.is_token("authorization_code")).expect("a code");
    let Event::Token { status, has_code_verifier, resource, refresh_token_issued, .. } = exchange
    else {
        unreachable!()
    };
    assert_eq!(*status, 200);
    assert!(*has_code_verifier && *refresh_token_issued);
    assert_eq!(resource.as_deref(), Some(setup.server.url().as_str()));
    let answered: Vec<_> = events
        .iter()
        .filter_map(|e| match e {
            Event::Mcp { status: 200, sub, .. } => Some(sub.clone()),
            _ => None,
        })
        .collect();
    assert!(answered.len() >= 4, "{events:?}");
    assert!(answered.iter().all(|s| s.as_deref() == Some("alice")), "{answered:?}");
}

/// Signs in (login and consent) and checks the first call works.
async fn signed_in(oidc: Oidc) -> Setup {
    let setup = Setup::start(oidc);
    assert_eq!(setup.whoami().await.expect("whoami"), "alice");
    assert_eq!(setup.sign_ins(), 1);
    setup
}

fn secret(token: &Option<Secret>) -> String {
    token.as_ref().expect("a refresh token").expose().to_owned()
}

#[tokio::test]
async fn an_access_token_expired_on_the_server_is_refreshed_silently() {
    let setup = signed_in(Oidc::default()).await;
    let before = setup.credentials();
    setup.admin.expire_access_tokens().await;

    // The MCP server now refuses the token; the authorizer refreshes once and retries.
    assert_eq!(setup.whoami().await.expect("whoami after expiry"), "alice");
    let after = setup.credentials();
    assert_eq!(setup.sign_ins(), 1, "no new sign-in");
    assert_eq!(setup.pages.prompts(), ["login", "consent"], "no page shown again");
    assert_ne!(after.access_token, before.access_token);
    assert_ne!(after.refresh_token, before.refresh_token, "the refresh token was rotated");

    let events = setup.admin.events().await;
    let expired = events.iter().position(|e| matches!(e, Event::AdminExpire)).expect("expired");
    let after_expiry = &events[expired..];
    let refused = after_expiry.iter().find_map(|e| match e {
        Event::Mcp { status: 401, had_token: true, www_authenticate, .. } => {
            www_authenticate.clone()
        }
        _ => None,
    });
    let refused = refused.expect("the old token was refused");
    assert!(refused.contains("invalid_token") && refused.contains("expired"), "{refused}");
    assert_eq!(count(after_expiry, |e| e.is_token("refresh_token")), 1, "{after_expiry:?}");
    assert_eq!(count(&events, |e| matches!(e, Event::RefreshTokenConsumed { .. })), 1);
    assert!(matches!(after_expiry.last(), Some(Event::Mcp { status: 200, .. })));

    // The provider confirms rotation: the old refresh token is used up, the new one alive.
    let client_id = &after.client.client_id;
    assert!(!setup.admin.is_active(&secret(&before.refresh_token), client_id).await);
    assert!(setup.admin.is_active(&secret(&after.refresh_token), client_id).await);
}

#[tokio::test]
async fn a_short_lived_token_is_refreshed_in_the_second_half_of_its_life_and_dies_on_time() {
    // Four seconds: shorter than the five minutes ahead, so the margin is half the life.
    let setup = signed_in(Oidc { access_token_ttl: 4, ..Oidc::default() }).await;
    let credentials = setup.credentials();
    let lifetime = credentials.expires_at_ms.expect("an expiry") - gemipanel_tests::oauth::now_ms();
    assert!(lifetime <= 4_000, "expires_in was the configured lifetime ({lifetime} ms)");

    // Young: used as it is, not refreshed before every request.
    assert_eq!(setup.whoami().await.expect("whoami"), "alice");
    let refreshes = |events: &[Event]| count(events, |e| e.is_token("refresh_token"));
    assert_eq!(refreshes(&setup.admin.events().await), 0, "a young token is not refreshed");
    // Past half its life: refreshed before the request leaves.
    for round in 0..2 {
        tokio::time::sleep(std::time::Duration::from_millis(2_200)).await;
        assert_eq!(setup.whoami().await.expect("whoami"), "alice", "round {round}");
    }
    let events = setup.admin.events().await;
    assert_eq!(refreshes(&events), 2, "one refresh per call past half-life");
    let refused = count(&events, |e| matches!(e, Event::Mcp { status: 401, had_token: true, .. }));
    assert_eq!(refused, 0, "no request left with a token about to die");

    // The MCP server itself enforces `exp`: the last token, sent too late, is refused.
    let stale = setup.credentials();
    tokio::time::sleep(std::time::Duration::from_millis(4_100)).await;
    let config = ServerConfig::new(setup.server.url());
    config.authorization.set(Some(Secret::new(stale.authorization())));
    let late = Client::new(NativeHost::default(), config);
    let refused = late.list_tools().await.expect_err("an expired token is refused");
    assert_eq!(refused.status(), Some(401));
    let challenge = refused.www_authenticate().unwrap_or_default();
    assert!(challenge.contains("invalid_token") && challenge.contains("expired"), "{challenge}");
}

#[tokio::test]
async fn a_revoked_grant_ends_in_needs_sign_in_and_a_click_brings_it_back() {
    let setup = signed_in(Oidc::default()).await;
    let before = setup.credentials();
    assert_eq!(setup.admin.revoke_all().await, 1);

    // A request on its own (no click) may not open the authorization page.
    let failure = setup.call_as(Interaction::Silent, "whoami", json!({})).await;
    assert!(matches!(failure, Err(Failure::NeedsSignIn)), "{failure:?}");
    assert_eq!(setup.credentials(), before, "a failed refresh loses nothing");
    assert_eq!(setup.registrations(), 1, "the registration is kept");
    assert_eq!(setup.sign_ins(), 1, "no page was opened");
    let refused = setup.host.refresh(&before).await.expect_err("the refresh token is dead");
    assert!(refused.needs_sign_in(), "{refused:?}");
    assert!(
        matches!(&refused, oauth::Error::TokenRefused { error, .. } if error == "invalid_grant"),
        "{refused:?}"
    );

    let events = setup.admin.events().await;
    let revoked =
        events.iter().position(|e| matches!(e, Event::AdminRevoke { .. })).expect("revoked");
    let after = &events[revoked..];
    let refused = after.iter().find_map(|e| match e {
        Event::Mcp { status: 401, www_authenticate, .. } => www_authenticate.clone(),
        _ => None,
    });
    assert!(refused.is_some_and(|h| h.contains("revoked")), "{after:?}");
    let refresh = after.iter().find(|e| e.is_token("refresh_token")).expect("a refresh");
    assert!(
        matches!(refresh, Event::Token { status: 400, error: Some(e), .. } if e == "invalid_grant")
    );

    // The person clicks Sign in: their session at the provider is still there, so only consent
    // is asked (the grant, not the login, was revoked).
    setup.auth.sign_in(&setup.host).await.expect("signs in again");
    assert_eq!(setup.pages.prompts(), ["login", "consent", "consent"]);
    assert_eq!(setup.whoami().await.expect("whoami"), "alice");
    assert_eq!(setup.registrations(), 1, "the registration was reused");
}

#[tokio::test]
async fn insufficient_scope_steps_up_to_the_union_of_scopes() {
    let setup = signed_in(Oidc::default()).await;
    assert_eq!(setup.credentials().scopes, ["mcp:tools"]);

    let report = setup.call("admin_report", json!({})).await.expect("a step-up, then the report");
    assert_eq!(report, "report for alice");
    assert_eq!(setup.sign_ins(), 2, "one step-up");
    // The session at the provider is kept: consent for the new scope, no login.
    assert_eq!(setup.pages.prompts(), ["login", "consent", "consent"]);
    let consent = &setup.pages.seen()[2].text;
    assert!(consent.contains("mcp:admin"), "{consent}");
    let credentials = setup.credentials();
    assert_eq!(credentials.scopes, ["mcp:tools", "mcp:admin"]);
    assert!(credentials.can_refresh());

    let events = setup.admin.events().await;
    let forbidden = events.iter().find_map(|e| match e {
        Event::Mcp { status: 403, tool: Some(t), www_authenticate, .. } if t == "admin_report" => {
            www_authenticate.clone()
        }
        _ => None,
    });
    let forbidden = forbidden.expect("the first call was refused");
    assert!(forbidden.contains(r#"error="insufficient_scope""#), "{forbidden}");
    let scopes: Vec<_> = events
        .iter()
        .filter_map(|e| match e {
            Event::Authorization { scope, status: 303, .. } => scope.clone(),
            _ => None,
        })
        .collect();
    assert_eq!(scopes, ["mcp:tools offline_access", "mcp:tools offline_access mcp:admin"]);
    // Still one tool call answered 200 under the new token, by alice with both scopes.
    let granted = events.iter().any(|e| {
        matches!(e, Event::Mcp { status: 200, tool: Some(t), scopes: Some(s), .. }
            if t == "admin_report" && s.iter().any(|s| s == "mcp:admin"))
    });
    assert!(granted, "{events:?}");
}

#[tokio::test]
async fn sign_out_revokes_the_tokens_at_the_provider() {
    let setup = signed_in(Oidc::default()).await;
    let credentials = setup.credentials();
    let client_id = credentials.client.client_id.clone();
    assert!(setup.admin.is_active(&secret(&credentials.refresh_token), &client_id).await);

    let results = setup.auth.sign_out(&setup.host).await;
    assert_eq!(setup.auth.credentials(), None, "forgotten");
    assert_eq!(*setup.host.kept().credentials.borrow(), None, "and the stored copy too");
    // The refresh token is revoked, and its grant with it; oidc-provider refuses to revoke its
    // JWT access tokens (RFC 7009 §2.2.1 `unsupported_token_type`).
    assert_eq!(results.len(), 2);
    assert_eq!(results[0], Ok(()));
    assert!(
        matches!(&results[1], Err(oauth::Error::TokenRefused { error, .. }) if error == "unsupported_token_type"),
        "{:?}",
        results[1]
    );

    // The provider confirms: the refresh token is dead, a refresh with it is refused, and the
    // MCP server no longer takes the access token of the revoked grant.
    assert!(!setup.admin.is_active(&secret(&credentials.refresh_token), &client_id).await);
    let refresh = setup.host.refresh(&credentials).await.expect_err("revoked");
    assert!(refresh.needs_sign_in(), "{refresh:?}");
    let config = ServerConfig::new(setup.server.url());
    config.authorization.set(Some(Secret::new(credentials.authorization())));
    let old_token = Client::new(NativeHost::default(), config);
    let refused = old_token.list_tools().await.expect_err("the access token is dead too");
    assert_eq!(refused.status(), Some(401));
    let events = setup.admin.events().await;
    let hints: Vec<_> = events
        .iter()
        .filter_map(|e| match e {
            Event::Revocation { status, token_type_hint, .. } => {
                Some((*status, token_type_hint.clone().unwrap_or_default()))
            }
            _ => None,
        })
        .collect();
    assert_eq!(hints, [(200, "refresh_token".into()), (400, "access_token".into())]);
    assert_eq!(count(&events, |e| matches!(e, Event::GrantRevoked { .. })), 1);
}

#[tokio::test]
async fn auto_approve_signs_in_without_any_page() {
    let setup = Setup::start(Oidc { auto_approve: Some("bob"), ..Oidc::default() });
    assert_eq!(setup.whoami().await.expect("whoami"), "bob");
    assert_eq!(setup.sign_ins(), 1);
    assert!(setup.pages.seen().is_empty(), "{:?}", setup.pages.seen());
    assert!(setup.credentials().can_refresh());
    let events = setup.admin.events().await;
    // Login, then consent: each answered with a redirect.
    assert_eq!(count(&events, |e| matches!(e, Event::AutoApproved)), 2);
}

#[tokio::test]
async fn the_extension_redirect_uris_are_registered_and_signed_in_with() {
    // The address `chrome.identity.getRedirectURL("oauth")` gives (a web client), and an
    // extension-scheme one (a native client with a private-use scheme).
    let cases = [
        ("https://abcdefghijklmnopabcdefghijklmnop.chromiumapp.org/oauth", "web"),
        ("chrome-extension://abcdefghijklmnopabcdefghijklmnop/oauth", "native"),
    ];
    for (redirect_uri, application_type) in cases {
        let setup = Setup::start_with(Oidc::default(), redirect_uri);
        assert_eq!(setup.whoami().await.expect("whoami"), "alice", "{redirect_uri}");
        let events = setup.admin.events().await;
        let registered = events.iter().any(|e| {
            matches!(e, Event::Registration { status: 201, application_type: Some(t), redirect_uris: Some(r), .. }
                if t == application_type && r == &[redirect_uri])
        });
        assert!(registered, "{redirect_uri}: {events:?}");
        let exchanged = events.iter().any(|e| {
            matches!(e, Event::Token { status: 200, grant_type: Some(g), .. } if g == "authorization_code")
        });
        assert!(exchanged, "{redirect_uri}: {events:?}");
    }
}

/// A request to the MCP server outside the client: `tools/list` with these headers; its status.
async fn raw_tools_list(url: &str, headers: &[(&str, String)]) -> u16 {
    let mut request = reqwest::Client::new()
        .post(url)
        .header("Content-Type", "application/json")
        .header("Accept", "application/json, text/event-stream")
        .header("MCP-Protocol-Version", "2025-06-18")
        .body(r#"{"jsonrpc":"2.0","id":1,"method":"tools/list"}"#);
    for (name, value) in headers {
        request = request.header(*name, value);
    }
    request.send().await.expect("the MCP server answers").status().as_u16()
}

#[tokio::test]
async fn tokens_are_bound_to_the_dpop_key_and_useless_without_it() {
    // oidc-provider offers DPoP by default: the sign-in binds the tokens to this host's key.
    let setup = signed_in(Oidc::default()).await;
    let credentials = setup.credentials();
    let key = setup.host.signer().expect("a DPoP key was made for the sign-in");
    let thumbprint = key.public_jwk().thumbprint();
    assert_eq!(credentials.dpop_jkt.as_deref(), Some(thumbprint.as_str()));
    let events = setup.admin.events().await;
    let code = events.iter().find(|e| e.is_token("authorization_code")).expect("a code");
    let Event::Token { token_type, had_proof, .. } = code else { unreachable!() };
    assert_eq!((token_type.as_deref(), *had_proof), (Some("DPoP"), true));
    let schemes: Vec<_> = events
        .iter()
        .filter_map(|e| match e {
            Event::Mcp { status: 200, scheme, dpop, .. } => Some((scheme.clone(), dpop.clone())),
            _ => None,
        })
        .collect();
    assert!(!schemes.is_empty());
    assert!(schemes.iter().all(|s| *s == (Some("DPoP".into()), Some("ok".into()))), "{schemes:?}");

    // The token copied out of the store, without the key: refused however it is presented.
    let token = credentials.access_token.expose().to_owned();
    let url = setup.server.url();
    assert_eq!(raw_tools_list(&url, &[("Authorization", format!("Bearer {token}"))]).await, 401);
    assert_eq!(raw_tools_list(&url, &[("Authorization", format!("DPoP {token}"))]).await, 401);
    let thief = gemipanel_tests::keys::NativeKey::generate();
    let stolen = std::rc::Rc::new(thief) as std::rc::Rc<dyn oauth::dpop::ProofSigner>;
    let proof = oauth::dpop::Dpop::new(stolen)
        .make_proof(gemipanel_core::mcp::Method::Post, &url, Some(&token))
        .await
        .expect("a proof of another key");
    let with_other_key = [("Authorization", format!("DPoP {token}")), ("DPoP", proof)];
    assert_eq!(raw_tools_list(&url, &with_other_key).await, 401);
    // With the key it holds, the client still gets through, and a refresh stays bound.
    setup.admin.expire_access_tokens().await;
    assert_eq!(setup.whoami().await.expect("whoami after a refresh"), "alice");
    let refreshed = setup.credentials();
    assert_ne!(refreshed.access_token, credentials.access_token);
    assert_eq!(refreshed.dpop_jkt.as_deref(), Some(thumbprint.as_str()));
}

#[tokio::test]
async fn both_servers_nonces_are_used_after_one_retry_each() {
    let setup = signed_in(Oidc { dpop: "nonce", ..Oidc::default() }).await;
    assert!(setup.credentials().is_bound());
    let events = setup.admin.events().await;
    let codes: Vec<_> = events
        .iter()
        .filter_map(|e| match e {
            Event::Token { grant_type: Some(g), status, error, .. }
                if g == "authorization_code" =>
            {
                Some((*status, error.clone()))
            }
            _ => None,
        })
        .collect();
    assert_eq!(codes, [(400, Some("use_dpop_nonce".into())), (200, None)], "{events:?}");
    let mcp: Vec<_> = events
        .iter()
        .filter_map(|e| match e {
            Event::Mcp { status, dpop: Some(dpop), .. } => Some((*status, dpop.clone())),
            _ => None,
        })
        .collect();
    // The first request with the token learns the nonce; every later one carries it.
    assert_eq!(mcp[0], (401, "nonce required".into()), "{mcp:?}");
    assert!(mcp.len() > 2 && mcp[1..].iter().all(|(_, d)| d == "ok"), "{mcp:?}");
}
