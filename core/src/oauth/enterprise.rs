//! Enterprise-managed authorization (MCP extension `enterprise-managed-authorization`, the
//! identity assertion authorization grant): the person signs in to their company's identity
//! provider once (OpenID Connect); its ID token is exchanged there for an identity assertion
//! for the MCP server's authorization server (RFC 8693, an ID-JAG), which that server takes as
//! a JWT grant (RFC 7523 §2.1).
//!
//! What the sign-in machine needs for the identity provider's part: the kept sign-in, the
//! checks on an ID token, and the token exchange's request and answer.

use serde::{Deserialize, Serialize};
use serde_json::Value;
use sha2::{Digest, Sha256};

use super::error::{Error, Step};
use super::exchange::{self, Response};
use super::jose;
use super::requests::{refusal, ID_JAG};
use super::token::TokenResponse;
use crate::mcp::redact_url;
use crate::settings::Secret;

/// An ID token is not used within this long of its expiry: the exchange must still find it
/// alive.
const ID_TOKEN_MARGIN_MS: u64 = 60_000;

/// A sign-in at an identity provider, kept for every server behind it: while its ID token
/// lives, those servers' tokens are obtained without the person.
#[derive(Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct IdpSession {
    pub issuer: String,
    pub client_id: String,
    pub id_token: Secret,
    pub expires_at_ms: u64,
}

impl std::fmt::Debug for IdpSession {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("IdpSession")
            .field("issuer", &self.issuer)
            .field("client_id", &self.client_id)
            .field("expires_at_ms", &self.expires_at_ms)
            .finish_non_exhaustive()
    }
}

impl IdpSession {
    /// Whether it is the sign-in at `issuer` as `client_id` and still alive at `now_ms`.
    pub fn usable(&self, issuer: &str, client_id: &str, now_ms: u64) -> bool {
        same_issuer(&self.issuer, issuer)
            && self.client_id == client_id
            && now_ms.saturating_add(ID_TOKEN_MARGIN_MS) < self.expires_at_ms
    }
}

/// Issuer identifiers as a person types them: a trailing slash makes no difference.
pub fn same_issuer(a: &str, b: &str) -> bool {
    a.trim().trim_end_matches('/') == b.trim().trim_end_matches('/')
}

/// The OpenID Connect `nonce` of a sign-in, derived from its PKCE verifier, which stays
/// secret until the code is exchanged at the same provider.
pub fn nonce(code_verifier: &[u8; 32]) -> String {
    let mut hash = Sha256::new();
    hash.update(b"gemipanel oidc nonce\0");
    hash.update(code_verifier);
    jose::base64url(&hash.finalize())
}

/// The checks OpenID Connect Core §3.1.3.7 asks of a client that does not verify the
/// signature itself (the identity provider verifies it when the token is exchanged): issuer,
/// audience, nonce, expiry. The session to keep.
pub fn check_id_token(
    id_token: &Secret,
    issuer: &str,
    client_id: &str,
    nonce: &str,
    now_ms: u64,
) -> Result<IdpSession, Error> {
    let rejected = |reason: &str| Error::IdTokenRejected { reason: reason.into() };
    let claims =
        jose::unverified_claims(id_token.expose()).ok_or_else(|| rejected("unreadable"))?;
    if !claims.get("iss").and_then(Value::as_str).is_some_and(|i| same_issuer(i, issuer)) {
        return Err(rejected("issuer"));
    }
    let audience_ok = match claims.get("aud") {
        Some(Value::String(aud)) => aud == client_id,
        Some(Value::Array(auds)) => auds.iter().any(|a| a.as_str() == Some(client_id)),
        _ => false,
    };
    if !audience_ok {
        return Err(rejected("audience"));
    }
    if claims.get("nonce").and_then(Value::as_str) != Some(nonce) {
        return Err(rejected("nonce"));
    }
    let expires_at_ms = claims
        .get("exp")
        .and_then(Value::as_u64)
        .map(|s| s.saturating_mul(1000))
        .filter(|exp| *exp > now_ms)
        .ok_or_else(|| rejected("expired"))?;
    Ok(IdpSession {
        issuer: issuer.to_owned(),
        client_id: client_id.to_owned(),
        id_token: id_token.clone(),
        expires_at_ms,
    })
}

/// The ID token of the identity provider's answer to the code (what kind of access token came
/// with it does not matter: it is not used).
pub fn read_id_token(url: &str, response: &Response) -> Result<Secret, Error> {
    let step = Step::IdentityProvider;
    exchange::check(step, url, response)?;
    if !exchange::is_success(response) {
        let status = response.status;
        return Err(refusal(step, url, response, |error, description| Error::TokenRefused {
            status,
            error,
            description,
        }));
    }
    let answer: TokenResponse = exchange::decode(step, url, &response.body)?;
    answer.id_token.filter(|t| !t.is_empty()).ok_or(Error::IdTokenMissing)
}

/// The identity assertion the token exchange answered with (RFC 8693 §2.2.1: the assertion is
/// in `access_token`, `issued_token_type` names it).
pub fn read_exchange(url: &str, response: &Response) -> Result<Secret, Error> {
    let step = Step::TokenExchange;
    exchange::check(step, url, response)?;
    if !exchange::is_success(response) {
        let status = response.status;
        return Err(refusal(step, url, response, |error, description| {
            Error::TokenExchangeRefused { status, error, description }
        }));
    }
    let answer: TokenResponse = exchange::decode(step, url, &response.body)?;
    let issued = answer.extra.get("issued_token_type").and_then(Value::as_str);
    if issued.is_some_and(|t| t != ID_JAG) || answer.access_token.is_empty() {
        return Err(Error::Malformed {
            step,
            url: redact_url(url),
            detail: "the answer is not an identity assertion (issued_token_type)".into(),
        });
    }
    Ok(answer.access_token)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn id_token(claims: Value) -> Secret {
        let input = jose::signing_input(&json!({"alg": "ES256"}), &claims);
        Secret::new(jose::compact(&input, &[1; 64]).unwrap())
    }

    #[test]
    fn an_id_token_of_another_sign_in_is_refused_by_name() {
        let good = json!({"iss": "https://idp.example/", "aud": ["x", "gemipanel"], "nonce": "n", "exp": 2000});
        let session = check_id_token(
            &id_token(good.clone()),
            "https://idp.example",
            "gemipanel",
            "n",
            1_000_000,
        )
        .unwrap();
        assert_eq!(session.expires_at_ms, 2_000_000);
        assert!(session.usable("https://idp.example/", "gemipanel", 1_000_000));
        assert!(
            !session.usable("https://idp.example", "gemipanel", 1_950_000),
            "too close to expiry"
        );
        assert!(!session.usable("https://other.example", "gemipanel", 1_000_000));
        for (change, reason) in [
            (json!({"iss": "https://evil.example"}), "issuer"),
            (json!({"aud": "someone-else"}), "audience"),
            (json!({"nonce": "replayed"}), "nonce"),
            (json!({"exp": 999}), "expired"),
        ] {
            let mut claims = good.clone();
            for (k, v) in change.as_object().unwrap() {
                claims[k] = v.clone();
            }
            let refused = check_id_token(
                &id_token(claims),
                "https://idp.example",
                "gemipanel",
                "n",
                1_000_000,
            );
            assert_eq!(refused.unwrap_err(), Error::IdTokenRejected { reason: reason.into() });
        }
        let garbage = check_id_token(&Secret::new("x"), "https://idp.example", "g", "n", 0);
        assert_eq!(garbage.unwrap_err(), Error::IdTokenRejected { reason: "unreadable".into() });
    }

    #[test]
    fn the_exchange_answers_an_assertion_or_the_providers_refusal() {
        let answer = |status: u16, body: &str| Response {
            status,
            headers: Vec::new(),
            body: body.as_bytes().to_vec(),
        };
        let ok = answer(
            200,
            r#"{"access_token":"JAG","issued_token_type":"urn:ietf:params:oauth:token-type:id-jag","token_type":"N_A"}"#,
        );
        assert_eq!(read_exchange("https://idp/t", &ok).unwrap().expose(), "JAG");
        let wrong = answer(
            200,
            r#"{"access_token":"AT","issued_token_type":"urn:ietf:params:oauth:token-type:access_token"}"#,
        );
        assert!(matches!(read_exchange("https://idp/t", &wrong), Err(Error::Malformed { .. })));
        let denied = answer(400, r#"{"error":"access_denied","error_description":"policy"}"#);
        assert_eq!(
            read_exchange("https://idp/t", &denied).unwrap_err(),
            Error::TokenExchangeRefused {
                status: 400,
                error: "access_denied".into(),
                description: Some("policy".into())
            }
        );
    }
}
