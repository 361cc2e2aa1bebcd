//! Signing in to a real authorization server: the TypeScript SDK's OAuth example (an MCP server
//! that demands a bearer token, RFC 9728 metadata, and an authorization server with dynamic
//! registration and PKCE S256 that approves at once), driven headlessly through core::oauth.

use gemipanel_core::mcp::{Client, ServerConfig};
use gemipanel_core::oauth::{renewal, ClientOptions, TokenEndpointAuth};
use gemipanel_tests::oauth::{authorized, Interaction, OAuthHost};
use gemipanel_tests::servers::Kind;
use gemipanel_tests::{NativeHost, TestServer};
use serde_json::json;

#[tokio::test]
async fn signs_in_on_the_first_401_and_then_uses_the_tools() {
    let server = TestServer::start(Kind::SdkOAuth);
    let config = ServerConfig::new(server.url());
    let host = OAuthHost::default();
    let auth =
        host.authorizer(&server.url(), ClientOptions::default(), config.authorization.clone());
    let kept = host.kept();
    let client = Client::new(NativeHost::default(), config);

    // Without a token the server refuses with a challenge; with one it answers.
    let unauthenticated = client.connect().await.expect_err("sign-in is required");
    assert_eq!(unauthenticated.status(), Some(401));
    assert!(unauthenticated.www_authenticate().is_some_and(|h| h.contains("resource_metadata")));

    let session = authorized(&auth, &host, Interaction::Allowed, || client.connect())
        .await
        .expect("connects once signed in");
    assert!(session.session_id.is_some());
    assert_eq!(kept.pages.get(), 1);
    let tools = authorized(&auth, &host, Interaction::Allowed, || client.list_tools())
        .await
        .expect("tools/list");
    assert!(tools.iter().any(|t| t.name == "greet"), "{tools:?}");
    let call = || client.call_tool("greet", json!({"name": "OAuth"}), &(), None);
    let greeting = authorized(&auth, &host, Interaction::Allowed, call).await.expect("greet");
    assert!(greeting.text().contains("OAuth"), "{greeting:?}");
    assert_eq!(kept.pages.get(), 1, "one sign-in serves every later request");

    let credentials = auth.credentials().expect("credentials are kept");
    assert_eq!(credentials.resource, server.url());
    assert_eq!(credentials.scopes, vec!["mcp:tools"]);
    assert_eq!(credentials.client.method, TokenEndpointAuth::None);
    assert!(credentials.expires_at_ms.is_some());
    assert_eq!(kept.registered.borrow().len(), 1, "the registration is kept for its issuer");
    // The example has no refresh tokens and no revocation endpoint.
    assert!(renewal::refresh_request(&credentials).is_err());
    assert!(renewal::revocation_requests(&credentials).is_empty());

    // A new sign-in (say, after the token was revoked) reuses the registration.
    let registered = kept.registered.borrow()[0].information.client_id.clone();
    auth.sign_in(&host).await.expect("signs in again");
    assert_eq!(kept.registered.borrow().len(), 1);
    assert_eq!(auth.credentials().unwrap().client.client_id, registered);
    let tools_again = authorized(&auth, &host, Interaction::Allowed, || client.list_tools())
        .await
        .expect("tools/list");
    assert_eq!(tools_again.len(), tools.len());
    client.close().await.expect("close");
}
