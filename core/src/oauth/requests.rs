//! The requests to a token endpoint and what comes back: the client's authentication in the
//! form or the header (RFC 6749 §2.3, RFC 7523 §2.2), the grants this client uses, and the
//! answer read and checked (RFC 6749 §5, RFC 9449 §5 for bound tokens).

use super::error::{Error, Step};
use super::exchange::{self, ClientAssertion, Response, SignedRequest};
use super::scopes;
use super::store::{ClientAuth, TokenEndpointAuth};
use super::token::{ErrorResponse, TokenResponse};
use crate::mcp::redact_url;
use crate::settings::Secret;

/// RFC 6749 §4.4.
pub const CLIENT_CREDENTIALS: &str = "client_credentials";
/// RFC 7523 §2.1: a JWT as the grant (here the identity assertion of enterprise sign-in).
pub const JWT_BEARER: &str = "urn:ietf:params:oauth:grant-type:jwt-bearer";
/// RFC 8693 §2.1.
pub const TOKEN_EXCHANGE: &str = "urn:ietf:params:oauth:grant-type:token-exchange";
/// The identity assertion JWT authorization grant (draft-ietf-oauth-identity-assertion-authz-grant).
pub const ID_JAG: &str = "urn:ietf:params:oauth:token-type:id-jag";
/// RFC 8693 §3.
pub const ID_TOKEN: &str = "urn:ietf:params:oauth:token-type:id_token";

/// A token endpoint request with the client's authentication in the body or the header, or as
/// an assertion the driver signs. `issuer` is the authorization server's identifier, which an
/// assertion is addressed to.
pub(crate) fn token_request(
    url: &str,
    pairs: &[(&str, &str)],
    client: &ClientAuth,
    issuer: &str,
) -> SignedRequest {
    let mut pairs = pairs.to_vec();
    let secret = client.client_secret.as_ref().map(Secret::expose).unwrap_or_default();
    let (request, assertion) = match client.method {
        TokenEndpointAuth::ClientSecretBasic => {
            (exchange::post_form(url, &pairs, Some((&client.client_id, secret))), None)
        }
        TokenEndpointAuth::ClientSecretPost => {
            pairs.push(("client_id", &client.client_id));
            pairs.push(("client_secret", secret));
            (exchange::post_form(url, &pairs, None), None)
        }
        TokenEndpointAuth::None => {
            pairs.push(("client_id", &client.client_id));
            (exchange::post_form(url, &pairs, None), None)
        }
        // The client is named by the assertion's `sub` (RFC 7523 §3): no `client_id`.
        TokenEndpointAuth::PrivateKeyJwt => {
            let assertion = client.private_key.clone().map(|private_key| ClientAssertion {
                client_id: client.client_id.clone(),
                audience: issuer.to_owned(),
                private_key,
            });
            (exchange::post_form(url, &pairs, None), assertion)
        }
    };
    SignedRequest { request, proof: false, assertion }
}

/// A token response, read and checked.
#[derive(Debug)]
pub(crate) struct Issued {
    pub access_token: Secret,
    pub refresh_token: Option<Secret>,
    pub expires_at_ms: Option<u64>,
    pub scopes: Option<Vec<String>>,
    /// `token_type` DPoP: bound to the key whose proof went with the request.
    pub bound: bool,
}

/// Reads a token endpoint's answer. `proved`: the request carried a DPoP proof, so a DPoP
/// token is what was asked for; otherwise only Bearer is.
pub(crate) fn read_token_response(
    now_ms: u64,
    url: &str,
    response: &Response,
    proved: bool,
) -> Result<Issued, Error> {
    let step = Step::Token;
    exchange::check(step, url, response)?;
    if !exchange::is_success(response) {
        let status = response.status;
        return Err(refusal(step, url, response, |error, description| Error::TokenRefused {
            status,
            error,
            description,
        }));
    }
    let token: TokenResponse = exchange::decode(step, url, &response.body)?;
    // RFC 9449 §5: a server that does not bind answers Bearer even to a proof.
    let bound = match token.token_type.as_deref() {
        None => false,
        Some(kind) if kind.eq_ignore_ascii_case("bearer") => false,
        Some(kind) if proved && kind.eq_ignore_ascii_case("dpop") => true,
        Some(kind) => {
            return Err(Error::UnsupportedTokenType { token_type: kind.chars().take(40).collect() })
        }
    };
    if token.access_token.is_empty() {
        return Err(Error::Malformed {
            step,
            url: redact_url(url),
            detail: "empty access_token".into(),
        });
    }
    let lifetime = token.expires_in.as_ref().and_then(|e| e.seconds());
    Ok(Issued {
        access_token: token.access_token,
        refresh_token: token.refresh_token.filter(|t| !t.is_empty()),
        expires_at_ms: lifetime.map(|s| now_ms.saturating_add(s.saturating_mul(1000))),
        scopes: token.scope.as_deref().map(scopes::split),
        bound,
    })
}

/// The error of an answer with an OAuth error body (RFC 6749 says 400 or 401; servers also
/// send one with a 5xx), else of its status. A refusal that is about where the request came
/// from (an authorization server checking the `Origin` of browser requests) says so.
pub(crate) fn refusal(
    step: Step,
    url: &str,
    response: &Response,
    make: impl FnOnce(String, Option<String>) -> Error,
) -> Error {
    let body = (response.status >= 400).then_some(&response.body);
    match body.and_then(|b| serde_json::from_slice::<ErrorResponse>(b).ok()) {
        Some(e) if is_origin_refusal(&e) => Error::OriginRefused { step, url: redact_url(url) },
        Some(e) => make(clip(&e.error), e.error_description.as_deref().map(clip)),
        None => Error::Status { step, url: redact_url(url), status: response.status },
    }
}

/// oidc-provider: `invalid_request`, "origin chrome-extension://… not allowed for client: …";
/// others word it alike ("Origin not allowed", "CORS origin rejected").
fn is_origin_refusal(error: &ErrorResponse) -> bool {
    let description = error.error_description.as_deref().unwrap_or_default().to_lowercase();
    description.contains("origin")
        && ["not allowed", "not permitted", "rejected", "forbidden", "cors"]
            .iter()
            .any(|phrase| description.contains(phrase))
}

/// Server-chosen text in a message, cut to a readable length.
pub(crate) fn clip(text: &str) -> String {
    text.chars().take(300).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn answer(status: u16, body: &str) -> Response {
        Response { status, headers: Vec::new(), body: body.as_bytes().to_vec() }
    }

    #[test]
    fn a_dpop_token_is_taken_only_when_a_proof_asked_for_one() {
        let dpop = answer(200, r#"{"access_token":"a","token_type":"DPoP"}"#);
        assert!(read_token_response(0, "https://a/t", &dpop, true).unwrap().bound);
        assert!(matches!(
            read_token_response(0, "https://a/t", &dpop, false),
            Err(Error::UnsupportedTokenType { .. })
        ));
        let bearer = answer(200, r#"{"access_token":"a","token_type":"bearer"}"#);
        assert!(!read_token_response(0, "https://a/t", &bearer, true).unwrap().bound);
        let other = answer(200, r#"{"access_token":"a","token_type":"mac"}"#);
        assert!(read_token_response(0, "https://a/t", &other, true).is_err());
    }

    #[test]
    fn a_refusal_of_the_extensions_origin_is_named_as_such() {
        // oidc-provider's default CORS policy, to an extension's token request.
        let refused = answer(
            400,
            r#"{"error":"invalid_request","error_description":"origin chrome-extension://kllodkfcinihfdkamgbfclpklodomgdp not allowed for client: abc"}"#,
        );
        let error = read_token_response(0, "https://a.example/token", &refused, false).unwrap_err();
        assert_eq!(
            error,
            Error::OriginRefused { step: Step::Token, url: "https://a.example/token".into() }
        );
        assert!(error.to_string().contains("refuses requests coming from a browser extension"));
        let other = answer(400, r#"{"error":"invalid_grant","error_description":"code expired"}"#);
        assert!(matches!(
            read_token_response(0, "https://a/t", &other, false),
            Err(Error::TokenRefused { .. })
        ));
    }
}
