//! Signing in through core::oauth against `oidc-provider`, an OpenID-certified authorization
//! server, in front of a test MCP server on the official SDK that checks every token
//! (`fixtures/oidc/server.mjs`). A headless person fills the provider's login and consent pages
//! ([`DevPages`]); what the servers saw is read back from the fixture ([`Admin`]).

use gemipanel_core::mcp::{Client, ServerConfig};
use gemipanel_core::oauth::{self, ClientOptions, TokenEndpointAuth};
use gemipanel_tests::oauth::{authorized, Authorizer, Failure, OAuthHost, REDIRECT_URI};
use gemipanel_tests::oidc::{Admin, DevPages, Event};
use gemipanel_tests::servers::{Kind, Oidc};
use gemipanel_tests::{NativeHost, TestServer};
use serde_json::json;

/// A running fixture with a client and an authorizer driven by a headless person.
struct Setup {
    server: TestServer,
    client: Client<NativeHost>,
    auth: Authorizer,
    pages: DevPages,
    admin: Admin,
}

impl Setup {
    fn start(oidc: Oidc) -> Setup {
        let server = TestServer::start(Kind::Oidc(oidc));
        let config = ServerConfig::new(server.url());
        let mut auth =
            Authorizer::new(&server.url(), ClientOptions::default(), config.authorization.clone());
        let pages = DevPages::new("alice");
        auth.host = OAuthHost::with_pages(pages.clone());
        let client = Client::new(NativeHost::default(), config);
        let admin = Admin::new(&server.url(), &server.issuer().expect("an issuer"));
        Setup { server, client, auth, pages, admin }
    }

    fn issuer(&self) -> String {
        self.server.issuer().expect("an issuer")
    }

    /// A tool call through the authorizer: its text.
    async fn call(&mut self, tool: &str, arguments: serde_json::Value) -> Result<String, Failure> {
        let client = &self.client;
        let call = || client.call_tool(tool, arguments.clone(), &(), None);
        authorized(&mut self.auth, call).await.map(|result| result.text())
    }

    /// `whoami`: the subject the MCP server read off the token.
    async fn whoami(&mut self) -> Result<String, Failure> {
        self.call("whoami", json!({})).await
    }

    async fn tool_names(&mut self) -> Vec<String> {
        let client = &self.client;
        let tools = authorized(&mut self.auth, || client.list_tools()).await.expect("tools/list");
        let mut names: Vec<_> = tools.into_iter().map(|t| t.name).collect();
        names.sort_unstable();
        names
    }

    fn credentials(&self) -> oauth::Credentials {
        self.auth.credentials.clone().expect("signed in")
    }
}

fn count(events: &[Event], wanted: impl Fn(&Event) -> bool) -> usize {
    events.iter().filter(|e| wanted(e)).count()
}

#[tokio::test]
async fn signs_in_through_the_login_and_consent_pages_then_uses_the_tools() {
    let mut setup = Setup::start(Oidc::default());

    // Without a token: 401 with the RFC 9728 metadata and the scope the server needs.
    let refused = setup.client.connect().await.expect_err("sign-in is required");
    assert_eq!(refused.status(), Some(401));
    let challenge = refused.www_authenticate().expect("a challenge").to_owned();
    assert!(challenge.contains("resource_metadata=\""), "{challenge}");
    assert!(challenge.contains("scope=\"mcp:tools\""), "{challenge}");

    let client = &setup.client;
    authorized(&mut setup.auth, || client.connect()).await.expect("connects once signed in");
    assert_eq!(setup.auth.sign_ins, 1);
    assert_eq!(setup.pages.prompts(), ["login", "consent"]);
    let consent = &setup.pages.seen()[1].text;
    assert!(consent.contains(&setup.server.url()) && consent.contains("mcp:tools"), "{consent}");

    assert_eq!(setup.tool_names().await, ["admin_report", "echo", "whoami"]);
    assert_eq!(setup.whoami().await.expect("whoami"), "alice");
    let echo = setup.call("echo", json!({"message": "hi"})).await.expect("echo");
    assert_eq!(echo, "Echo: hi");
    assert_eq!(setup.auth.sign_ins, 1, "one sign-in serves every later request");

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
