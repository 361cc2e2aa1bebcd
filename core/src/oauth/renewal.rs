//! Keeping a sign-in alive and ending it: the refresh token grant (RFC 6749 §6, with the RFC 8707
//! `resource`) and revocation (RFC 7009). Single exchanges, so plain functions: the driver sends
//! the request and hands the answer back.

use super::error::{Error, Step};
use super::exchange::{self, Response, SignedRequest};
use super::requests::{read_token_response, refusal, token_request};
use super::store::Credentials;

/// The refresh request, or [`Error::NoRefreshToken`] when there is nothing to refresh with. A
/// bound token's refresh proves possession of its key (RFC 9449 §5: a public client's refresh
/// token is bound to it too).
pub fn refresh_request(credentials: &Credentials) -> Result<SignedRequest, Error> {
    let refresh_token = credentials.refresh_token.as_ref().filter(|t| !t.is_empty());
    let refresh_token = refresh_token.ok_or(Error::NoRefreshToken)?;
    let pairs = vec![
        ("grant_type", "refresh_token"),
        ("refresh_token", refresh_token.expose()),
        ("resource", credentials.resource.as_str()),
    ];
    let mut signed = token_request(
        &credentials.token_endpoint,
        &pairs,
        &credentials.client,
        &credentials.issuer,
    );
    signed.proof = credentials.is_bound();
    Ok(signed)
}

/// The credentials after a refresh. A new refresh token replaces the old one (rotation); a
/// server that sends none keeps the old one valid. A refused refresh is an error the caller
/// turns into "needs sign-in", keeping everything else.
pub fn refreshed(
    credentials: &Credentials,
    now_ms: u64,
    response: &Response,
) -> Result<Credentials, Error> {
    let issued =
        read_token_response(now_ms, &credentials.token_endpoint, response, credentials.is_bound())?;
    let mut renewed = credentials.clone();
    if !issued.bound {
        renewed.dpop_jkt = None;
    }
    renewed.access_token = issued.access_token;
    if let Some(rotated) = issued.refresh_token {
        renewed.refresh_token = Some(rotated);
    }
    renewed.expires_at_ms = issued.expires_at_ms;
    renewed.issued_at_ms = Some(now_ms);
    if let Some(scopes) = issued.scopes {
        renewed.scopes = scopes;
    }
    Ok(renewed)
}

/// The revocation requests for signing out: the refresh token first (servers revoke the access
/// tokens issued with it too), then the access token. None without a revocation endpoint.
pub fn revocation_requests(credentials: &Credentials) -> Vec<SignedRequest> {
    let Some(url) = credentials.revocation_endpoint.as_deref() else { return Vec::new() };
    let mut tokens = Vec::new();
    if let Some(refresh) = credentials.refresh_token.as_ref().filter(|t| !t.is_empty()) {
        tokens.push((refresh.expose(), "refresh_token"));
    }
    tokens.push((credentials.access_token.expose(), "access_token"));
    tokens
        .into_iter()
        .map(|(token, hint)| {
            let pairs = vec![("token", token), ("token_type_hint", hint)];
            token_request(url, &pairs, &credentials.client, &credentials.issuer)
        })
        .collect()
}

/// Whether a revocation went through. RFC 7009 §2.2: 200 for revoked and for unknown tokens.
/// Signing out forgets the tokens whatever this says; the error only tells the person the server
/// may still honour them until they expire.
pub fn revocation_result(url: &str, response: &Response) -> Result<(), Error> {
    let step = Step::Revocation;
    exchange::check(step, url, response)?;
    if exchange::is_success(response) {
        return Ok(());
    }
    Err(refusal(step, url, response, |error, description| Error::TokenRefused {
        status: response.status,
        error,
        description,
    }))
}
