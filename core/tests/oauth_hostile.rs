//! Hostile or broken servers: each is refused with a message a person can act on, the refused
//! URL is never contacted, no code reaches a token endpoint, and nothing comes out to keep.

#[path = "support/oauth_world.rs"]
mod world;

use gemipanel_core::oauth::{
    ClientOptions, Error, PreRegistered, SignInConfig, MAX_DOCUMENT_BYTES,
};
use gemipanel_core::settings::Secret;
use gemipanel_core::url_policy::RefusalKind;
use world::{config, fixture, sdk_example, Page, Route, World};

const PRM: &str = "https://mcp.example.com/.well-known/oauth-protected-resource/mcp";
const ASM: &str = "https://auth.example.com/.well-known/oauth-authorization-server";

fn resource_metadata_with(from: &str, to: &str) -> Route {
    Route::json(
        fixture("sdk-example/protected-resource.json")
            .replace("http://localhost:3000", "https://mcp.example.com")
            .replace(from, to),
    )
}

fn server_metadata_with(from: &str, to: &str) -> Route {
    Route::json(
        fixture("sdk-example/authorization-server.json")
            .replace("http://localhost:3001", "https://auth.example.com")
            .replace(from, to),
    )
}

struct Case {
    name: &'static str,
    /// Changes the recorded public example into the hostile one.
    setup: fn(&mut World, &mut SignInConfig),
    expect: fn(&Error) -> bool,
    /// A part of the message the person sees.
    message: &'static str,
}

fn refused(reason: RefusalKind) -> impl Fn(&Error) -> bool {
    move |e| matches!(e, Error::UrlRefused { reason: r, .. } if *r == reason)
}

fn cases() -> Vec<Case> {
    vec![
        Case {
            name: "authorization server at the cloud metadata address",
            setup: |w, _| {
                w.get(
                    PRM,
                    resource_metadata_with("http://localhost:3001/", "https://169.254.169.254/"),
                );
            },
            expect: |e| refused(RefusalKind::Metadata)(e),
            message: "points to 169.254.169.254, a cloud metadata service",
        },
        Case {
            name: "token endpoint on loopback",
            setup: |w, _| {
                w.get(
                    ASM,
                    server_metadata_with(
                        "https://auth.example.com/token",
                        "https://127.0.0.1/token",
                    ),
                );
            },
            expect: |e| refused(RefusalKind::NotPublic)(e),
            message: "token_endpoint points to 127.0.0.1, which is not a public address",
        },
        Case {
            name: "registration endpoint on a private network",
            setup: |w, _| {
                w.get(
                    ASM,
                    server_metadata_with(
                        "https://auth.example.com/register",
                        "https://10.0.0.1/register",
                    ),
                );
            },
            expect: |e| refused(RefusalKind::NotPublic)(e),
            message: "registration_endpoint points to 10.0.0.1",
        },
        Case {
            name: "authorization endpoint at an IPv4-mapped loopback",
            setup: |w, _| {
                w.get(
                    ASM,
                    server_metadata_with(
                        "https://auth.example.com/authorize",
                        "https://[::ffff:127.0.0.1]/authorize",
                    ),
                );
            },
            expect: |e| refused(RefusalKind::NotPublic)(e),
            message: "authorization_endpoint points to [::ffff:7f00:1]",
        },
        Case {
            name: "token endpoint as a decimal IPv4 address",
            setup: |w, _| {
                w.get(
                    ASM,
                    server_metadata_with(
                        "https://auth.example.com/token",
                        "https://2130706433/token",
                    ),
                );
            },
            expect: |e| refused(RefusalKind::NotPublic)(e),
            message: "points to 127.0.0.1",
        },
        Case {
            name: "token endpoint as an octal IPv4 address",
            setup: |w, _| {
                w.get(
                    ASM,
                    server_metadata_with(
                        "https://auth.example.com/token",
                        "https://0177.0.0.1/token",
                    ),
                );
            },
            expect: |e| refused(RefusalKind::NotPublic)(e),
            message: "points to 127.0.0.1",
        },
        Case {
            name: "resource metadata URL in the header at the metadata service",
            setup: |_, c| {
                c.challenge = Some(
                    r#"Bearer resource_metadata="http://169.254.169.254/latest/meta-data""#.into(),
                );
            },
            expect: |e| refused(RefusalKind::Metadata)(e),
            message: "protected resource metadata URL points to 169.254.169.254",
        },
        Case {
            name: "plain http endpoints from a public server",
            setup: |w, _| {
                w.get(
                    ASM,
                    server_metadata_with(
                        "https://auth.example.com/token",
                        "http://auth.example.com/token",
                    ),
                );
            },
            expect: |e| refused(RefusalKind::Insecure)(e),
            message: "token_endpoint is not https",
        },
        Case {
            name: "an issuer that does not match",
            setup: |w, _| {
                w.get(
                    ASM,
                    server_metadata_with(
                        r#""issuer":"https://auth.example.com/""#,
                        r#""issuer":"https://attacker.example.com/""#,
                    ),
                );
            },
            expect: |e| matches!(e, Error::IssuerMismatch { .. }),
            message: "names another issuer (https://attacker.example.com/)",
        },
        Case {
            name: "a resource that does not match",
            setup: |w, _| {
                w.get(
                    PRM,
                    resource_metadata_with(
                        r#""resource":"https://mcp.example.com/mcp""#,
                        r#""resource":"https://evil.example.com/mcp""#,
                    ),
                );
            },
            expect: |e| matches!(e, Error::ResourceMismatch { .. }),
            message: "for another resource (https://evil.example.com/mcp)",
        },
        Case {
            name: "a 10 MB metadata document",
            setup: |w, _| {
                let huge = format!(
                    r#"{{"resource":"https://mcp.example.com/mcp","pad":"{}"}}"#,
                    "x".repeat(10 << 20)
                );
                w.get(PRM, Route::json(huge));
            },
            expect: |e| matches!(e, Error::TooLarge { limit, .. } if *limit == MAX_DOCUMENT_BYTES),
            message: "is larger than 1048576 bytes",
        },
        Case {
            name: "a redirect loop",
            setup: |w, _| {
                w.get(PRM, Route::redirect(PRM));
            },
            expect: |e| matches!(e, Error::Redirected { status: 302, .. }),
            message: "answered with a redirect (HTTP 302), which sign-in never follows",
        },
        Case {
            name: "PKCE not offered",
            setup: |w, _| {
                w.get(
                    ASM,
                    server_metadata_with(r#""code_challenge_methods_supported":["S256"],"#, ""),
                );
            },
            expect: |e| matches!(e, Error::PkceUnsupported { .. }),
            message: "does not offer PKCE with S256",
        },
        Case {
            name: "PKCE only in its plain form",
            setup: |w, _| {
                w.get(ASM, server_metadata_with(r#"["S256"]"#, r#"["plain"]"#));
            },
            expect: |e| matches!(e, Error::PkceUnsupported { .. }),
            message: "does not offer PKCE with S256",
        },
        Case {
            name: "no authorization server listed",
            setup: |w, _| {
                w.get(PRM, resource_metadata_with(r#"["http://localhost:3001/"]"#, "[]"));
            },
            expect: |e| matches!(e, Error::NoAuthorizationServer { .. }),
            message: "names no authorization server",
        },
        Case {
            name: "metadata of the wrong shape",
            setup: |w, _| {
                w.get(
                    PRM,
                    resource_metadata_with(
                        r#"["http://localhost:3001/"]"#,
                        r#""http://localhost:3001/""#,
                    ),
                );
            },
            expect: |e| matches!(e, Error::Malformed { .. }),
            message: "unreadable document: invalid type: string",
        },
        Case {
            name: "no metadata anywhere for the issuer",
            setup: |w, _| {
                w.routes.remove(&format!("GET {ASM}"));
            },
            expect: |e| matches!(e, Error::NoServerMetadata { .. }),
            message: "publishes no metadata at any well-known location",
        },
        Case {
            name: "a server error while discovering",
            setup: |w, _| {
                w.get(ASM, Route::status(503, "busy"));
            },
            expect: |e| matches!(e, Error::Status { status: 503, .. }),
            message: "answered HTTP 503",
        },
        Case {
            name: "no registration and no client id",
            setup: |w, _| {
                w.get(
                    ASM,
                    server_metadata_with(
                        r#","registration_endpoint":"https://auth.example.com/register""#,
                        "",
                    ),
                );
            },
            expect: |e| matches!(e, Error::NeedsClientId { .. }),
            message: "enter a client id for this server under Advanced",
        },
        Case {
            name: "registration refused",
            setup: |w, _| {
                w.post(
                    "https://auth.example.com/register",
                    Route::status(
                        400,
                        r#"{"error":"invalid_redirect_uri","error_description":"not allowed"}"#,
                    ),
                );
            },
            expect: |e| matches!(e, Error::RegistrationRefused { .. }),
            message: "refused to register this client: invalid_redirect_uri (not allowed)",
        },
        Case {
            name: "a client id entered for another authorization server",
            setup: |_, c| {
                c.client = ClientOptions {
                    pre_registered: Some(PreRegistered {
                        client_id: "mine".into(),
                        client_secret: None,
                        private_key: None,
                        issuer: Some("https://old-auth.example.com/".into()),
                    }),
                    ..ClientOptions::default()
                };
            },
            expect: |e| matches!(e, Error::ClientIdForOtherServer { .. }),
            message: "was issued by https://old-auth.example.com/",
        },
        Case {
            name: "a secret entered for another authorization server",
            setup: |_, c| {
                c.client = ClientOptions {
                    pre_registered: Some(PreRegistered {
                        client_id: "mine".into(),
                        client_secret: Some(Secret::new("SECRET-FOR-OLD-AUTH")),
                        private_key: None,
                        issuer: Some("https://old-auth.example.com".into()),
                    }),
                    ..ClientOptions::default()
                };
            },
            expect: |e| matches!(e, Error::ClientIdForOtherServer { .. }),
            message: "was issued by https://old-auth.example.com/",
        },
        Case {
            // Issue 22, item 8: a secret typed without the issuer it belongs to goes nowhere,
            // not even to the first authorization server the MCP server names.
            name: "a secret entered without the authorization server it belongs to",
            setup: |_, c| {
                c.client = ClientOptions {
                    pre_registered: Some(PreRegistered {
                        client_id: "mine".into(),
                        client_secret: Some(Secret::new("SECRET-FOR-OLD-AUTH")),
                        private_key: None,
                        issuer: None,
                    }),
                    ..ClientOptions::default()
                };
            },
            expect: |e| matches!(e, Error::SecretWithoutIssuer { .. }),
            message: "is not tied to an authorization server, so it is not sent to https://auth.example.com/",
        },
        Case {
            name: "a forged state",
            setup: |w, _| w.page = Page::WrongState,
            expect: |e| matches!(e, Error::StateMismatch),
            message: "state mismatch",
        },
        Case {
            name: "an answer from another issuer",
            setup: |w, _| w.page = Page::Approve { iss: Some("https://evil.example.com".into()) },
            expect: |e| matches!(e, Error::IssMismatch { .. }),
            message: "comes from https://evil.example.com/ instead of https://auth.example.com/",
        },
        Case {
            name: "an error answer from another issuer is not shown",
            setup: |w, _| {
                w.page = Page::Deny {
                    error: "click_here_evil.example".into(),
                    iss: Some("https://evil.example.com".into()),
                }
            },
            expect: |e| matches!(e, Error::IssMismatch { .. }),
            message: "refusing it",
        },
        Case {
            name: "consent denied",
            setup: |w, _| w.page = Page::Deny { error: "access_denied".into(), iss: None },
            expect: |e| matches!(e, Error::AuthorizationDenied { .. }),
            message: "sign-in was not granted: access_denied",
        },
        Case {
            name: "the window closed",
            setup: |w, _| w.page = Page::Close,
            expect: |e| matches!(e, Error::Cancelled),
            message: "cancelled",
        },
        Case {
            name: "the page sent the browser elsewhere",
            setup: |w, _| {
                w.page = Page::Elsewhere("https://evil.example.com/oauth/callback?code=x".into())
            },
            expect: |e| matches!(e, Error::WrongRedirect),
            message: "unexpected address",
        },
        Case {
            name: "a token type other than Bearer",
            setup: |w, _| {
                w.post(
                    "https://auth.example.com/token",
                    Route::json(r#"{"access_token":"t","token_type":"mac"}"#),
                );
            },
            expect: |e| matches!(e, Error::UnsupportedTokenType { .. }),
            message: "issued a mac token",
        },
        Case {
            name: "the code refused",
            setup: |w, _| {
                w.post(
                    "https://auth.example.com/token",
                    Route::status(400, r#"{"error":"invalid_grant"}"#),
                );
            },
            expect: |e| matches!(e, Error::TokenRefused { status: 400, .. }),
            message: "the token endpoint refused (HTTP 400): invalid_grant",
        },
    ]
}

#[test]
fn hostile_and_broken_servers_are_refused_with_a_message() {
    for case in cases() {
        let (mut world, server, challenge) = sdk_example(Page::Approve { iss: None }, true);
        let mut setup = config(&server, Some(&challenge));
        (case.setup)(&mut world, &mut setup);
        let outcome = world.sign_in(setup);
        let error = match outcome {
            Ok(_) => panic!("{}: signed in", case.name),
            Err(error) => error,
        };
        assert!((case.expect)(&error), "{}: {error:?}", case.name);
        let message = error.to_string();
        assert!(message.contains(case.message), "{}: {message}", case.name);
        for request in world.trail() {
            for forbidden in
                ["169.254.169.254", "127.0.0.1", "10.0.0.1", "2130706433", "0177.", "[::ffff"]
            {
                assert!(!request.contains(forbidden), "{}: contacted {request}", case.name);
            }
        }
        // A secret entered for the server reaches no one it was not entered for.
        for request in &world.requests {
            let body = request.body.as_deref().unwrap_or_default();
            let sent = format!("{} {:?} {body}", request.url, request.headers);
            assert!(
                !sent.contains("SECRET-FOR-OLD-AUTH"),
                "{}: sent to {}",
                case.name,
                request.url
            );
            assert!(request.header("Authorization").is_none(), "{}: {}", case.name, request.url);
        }
        let exchanged = world.trail().iter().any(|r| r.ends_with("/token"));
        let refused_at_token =
            matches!(error, Error::UnsupportedTokenType { .. } | Error::TokenRefused { .. });
        assert_eq!(exchanged, refused_at_token, "{}: {:?}", case.name, world.trail());
        // What a page may show: no code, token, verifier or state in it.
        let serialized = serde_json::to_string(&error).unwrap();
        for secret in ["code-1", "7a375c9a", "BwcHBwcH", "CQkJCQkJ"] {
            assert!(!message.contains(secret) && !serialized.contains(secret), "{}", case.name);
        }
    }
}

#[test]
fn errors_reach_the_pages_as_a_kind_and_arguments() {
    let error = Error::IssuerMismatch {
        expected: "https://auth.example.com/".into(),
        found: "https://attacker.example.com/".into(),
    };
    let json = serde_json::to_value(&error).unwrap();
    assert_eq!(
        json,
        serde_json::json!({
            "kind": "issuer_mismatch",
            "expected": "https://auth.example.com/",
            "found": "https://attacker.example.com/"
        })
    );
    assert_eq!(serde_json::from_value::<Error>(json).unwrap(), error);
    let refused = Error::UrlRefused {
        field: "token_endpoint".into(),
        host: "10.0.0.1".into(),
        reason: RefusalKind::NotPublic,
    };
    assert_eq!(serde_json::to_value(&refused).unwrap()["reason"], "not_public");
}
