//! Property tests: arbitrary input into every reader of OAuth network data never panics, and the
//! `WWW-Authenticate` parser gives back what a well-formed header holds.

#[path = "support/oauth_world.rs"]
mod world;

use gemipanel_core::mcp::HttpResponse;
use gemipanel_core::oauth::challenge::{self, BearerChallenge};
use gemipanel_core::oauth::metadata::{AuthorizationServerMetadata, ProtectedResourceMetadata};
use gemipanel_core::oauth::registration::{ClientInformation, ClientMetadata};
use gemipanel_core::oauth::token::{ErrorResponse, TokenResponse};
use gemipanel_core::oauth::{renewal, scopes, Action, Credentials, Randomness, SignIn};
use proptest::prelude::*;
use world::{config, NOW_MS};

fn token() -> impl Strategy<Value = String> {
    "[A-Za-z0-9!#$%&'*+.^_`|~-]{1,12}"
}

/// A parameter value and how it is written: as a token when it is one, else quoted.
fn value() -> impl Strategy<Value = String> {
    prop_oneof![token(), "[ -~]{0,20}", "\\PC{0,10}"]
}

fn written(value: &str) -> String {
    let is_token = !value.is_empty()
        && value.bytes().all(|b| b.is_ascii_alphanumeric() || b"!#$%&'*+.^_`|~-".contains(&b));
    if is_token {
        value.to_owned()
    } else {
        format!("\"{}\"", value.replace('\\', "\\\\").replace('"', "\\\""))
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    #[test]
    fn any_header_parses_without_panicking(header in "\\PC{0,200}") {
        for challenge in challenge::parse(&header) {
            prop_assert!(!challenge.scheme.is_empty());
            for (name, _) in &challenge.params {
                prop_assert_eq!(name, &name.to_ascii_lowercase());
            }
        }
        let _ = BearerChallenge::from_header(&header);
    }

    #[test]
    fn header_like_bytes_parse_without_panicking(header in "[a-zA-Z =,\"\\\\\t]{0,120}") {
        let _ = challenge::parse(&header);
    }

    #[test]
    fn well_formed_challenges_round_trip(
        challenges in prop::collection::vec(
            (token(), prop::collection::vec((token(), value()), 0..4)),
            1..4,
        ),
        space in prop_oneof![Just(""), Just(" "), Just("  ")],
    ) {
        let header = challenges
            .iter()
            .map(|(scheme, params)| {
                let params: Vec<String> = params
                    .iter()
                    .map(|(n, v)| format!("{n}{space}={space}{}", written(v)))
                    .collect();
                if params.is_empty() { scheme.clone() } else { format!("{scheme} {}", params.join(", ")) }
            })
            .collect::<Vec<_>>()
            .join(", ");
        let parsed = challenge::parse(&header);
        prop_assert_eq!(parsed.len(), challenges.len(), "{}", header);
        for (got, (scheme, params)) in parsed.iter().zip(&challenges) {
            prop_assert_eq!(&got.scheme, scheme);
            let expected: Vec<(String, String)> =
                params.iter().map(|(n, v)| (n.to_ascii_lowercase(), v.clone())).collect();
            prop_assert_eq!(&got.params, &expected, "{}", header);
        }
    }

    #[test]
    fn every_document_decoder_takes_any_bytes(bytes in prop::collection::vec(any::<u8>(), 0..300)) {
        let _ = serde_json::from_slice::<ProtectedResourceMetadata>(&bytes);
        let _ = serde_json::from_slice::<AuthorizationServerMetadata>(&bytes);
        let _ = serde_json::from_slice::<ClientMetadata>(&bytes);
        let _ = serde_json::from_slice::<ClientInformation>(&bytes);
        let _ = serde_json::from_slice::<TokenResponse>(&bytes);
        let _ = serde_json::from_slice::<ErrorResponse>(&bytes);
        let _ = serde_json::from_slice::<Credentials>(&bytes);
    }

    #[test]
    fn token_lifetimes_of_any_value(seconds in any::<f64>(), text in "\\PC{0,20}") {
        for json in [seconds.to_string(), format!("\"{}\"", text.replace('"', ""))] {
            if let Ok(token) = serde_json::from_str::<TokenResponse>(
                &format!(r#"{{"access_token":"t","expires_in":{json}}}"#),
            ) {
                let _ = token.expires_in.and_then(|e| e.seconds());
            }
        }
    }

    #[test]
    fn scopes_of_any_text(text in "\\PC{0,100}") {
        let split = scopes::split(&text);
        prop_assert!(split.iter().all(|s| !s.is_empty() && !s.contains(' ')));
        let _ = scopes::choose(&split, Some(&split), &split, Some(&split));
    }

    /// A sign-in fed arbitrary answers at every step ends, and never panics.
    #[test]
    fn sign_in_survives_any_answers(
        answers in prop::collection::vec(
            (prop::sample::select(vec![200u16, 201, 302, 400, 401, 404, 500]),
             prop::collection::vec(any::<u8>(), 0..200),
             any::<bool>()),
            1..12,
        ),
        redirect in "\\PC{0,80}",
        challenge in proptest::option::of("\\PC{0,80}"),
    ) {
        let random = Randomness { code_verifier: [1; 32], state: [2; 16] };
        let mut flow = SignIn::new(config("https://mcp.example.com/mcp", challenge.as_deref()), random);
        let mut answers = answers.into_iter();
        let mut finished = false;
        for _ in 0..40 {
            match flow.poll() {
                Some(Action::Send(_) | Action::SendSigned(_)) => {
                    let Some((status, body, valid_json)) = answers.next() else { break };
                    let body = if valid_json {
                        br#"{"resource":"https://mcp.example.com/mcp","authorization_servers":["https://a.example"],"issuer":"https://a.example","authorization_endpoint":"https://a.example/a","token_endpoint":"https://a.example/t","code_challenge_methods_supported":["S256"],"registration_endpoint":"https://a.example/r","client_id":"c","access_token":"x"}"#.to_vec()
                    } else {
                        body
                    };
                    flow.handle_response(NOW_MS, HttpResponse { status, headers: Vec::new(), body });
                }
                Some(Action::OpenAuthorizationPage(_)) => flow.handle_redirect(&redirect),
                Some(Action::Finished(_) | Action::IssuerFound(_)) => { finished = true; break }
                None => break,
            }
        }
        // Out of answers mid-way is the only way not to finish.
        prop_assert!(finished || answers.next().is_none());
    }

    #[test]
    fn refresh_and_revocation_answers_of_any_shape(
        status in prop::sample::select(vec![200u16, 204, 301, 400, 401, 500]),
        body in prop::collection::vec(any::<u8>(), 0..200),
    ) {
        let credentials: Credentials = serde_json::from_str(
            r#"{"serverUrl":"https://m.example/mcp","issuer":"https://a.example","resource":"https://m.example/mcp",
                "accessToken":"a","refreshToken":"r","tokenEndpoint":"https://a.example/t",
                "revocationEndpoint":"https://a.example/v",
                "client":{"clientId":"c","method":"none"}}"#,
        ).unwrap();
        let response = HttpResponse { status, headers: Vec::new(), body };
        let _ = renewal::refreshed(&credentials, NOW_MS, &response);
        let _ = renewal::revocation_result("https://a.example/v", &response);
    }
}
