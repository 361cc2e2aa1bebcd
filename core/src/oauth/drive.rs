//! Running the sign-in machine and the renewals against a host: one loop, shared by the worker
//! (fetch, WebCrypto and `chrome.identity`) and the native driver of the tests (reqwest, the
//! p256 crate, a headless page).
//!
//! The signatures a request needs are added here, just before it leaves ([`transmit`]): a
//! client assertion signed with the client's private key (RFC 7523 §2.2) and a DPoP proof
//! (RFC 9449), sent once more when the authorization server answers with a new nonce (§8).

use serde_json::json;

use super::dpop::{self, Dpop};
use super::error::{Error, Step};
use super::exchange::{ClientAssertion, Response, SignedRequest, CLIENT_ASSERTION_TYPE};
use super::jose::{self, ES256};
use super::renewal;
use super::sign_in::{Action, Purpose, Randomness, SignIn, SignInConfig, SignedIn};
use super::store::Credentials;
use crate::mcp::{redact_url, HttpRequest};
use crate::settings::pkcs8_from_pem;
use crate::text::Text;

/// How long a client assertion is valid: it is made just before the request that carries it.
const ASSERTION_LIFETIME_S: u64 = 60;

/// What sign-in needs from its host.
#[allow(async_fn_in_trait)] // `?Send`: the browser host is single-threaded.
pub trait OAuthHost {
    /// Sends a request without following redirects and reads at most
    /// `MAX_DOCUMENT_BYTES + 1` bytes of the answer; `Err` says why it could not.
    async fn send(&self, request: HttpRequest) -> Result<Response, String>;
    /// Opens the authorization page for the person; the URL the browser was sent back to, or
    /// `None` when the person closed the window.
    async fn authorize(&self, url: &str) -> Option<String>;
    fn now_ms(&self) -> u64;
    /// 16 fresh random bytes (a client assertion's `jti`).
    fn random_id(&self) -> Option<[u8; 16]>;
    /// The ES256 signature (`r || s`) of `input` with a private key given as PKCS #8 DER.
    async fn sign_with_key(&self, pkcs8: &[u8], input: &[u8]) -> Result<Vec<u8>, String>;
}

/// Drives one sign-in to its end. Without `interactive`, a sign-in that would open a page
/// ends with [`Error::NeedsInteraction`] instead.
pub async fn sign_in(
    host: &impl OAuthHost,
    config: SignInConfig,
    random: Randomness,
    dpop: Option<&Dpop>,
    interactive: bool,
) -> Result<SignedIn, Error> {
    let mut flow = SignIn::new(config, random);
    loop {
        match flow.poll() {
            Some(Action::Send(request)) => match host.send(request).await {
                Ok(response) => flow.handle_response(host.now_ms(), response),
                Err(message) => flow.handle_transport_error(&message),
            },
            Some(Action::SendSigned(signed)) => match transmit(host, dpop, &signed).await {
                Ok(response) => flow.handle_response(host.now_ms(), response),
                Err(message) => flow.handle_transport_error(&message),
            },
            Some(Action::OpenAuthorizationPage(_)) if !interactive => {
                return Err(Error::NeedsInteraction)
            }
            Some(Action::OpenAuthorizationPage(url)) => match host.authorize(&url).await {
                Some(landed) => flow.handle_redirect(&landed),
                None => flow.cancel(),
            },
            Some(Action::Finished(outcome)) => return outcome.map(|signed_in| *signed_in),
            Some(Action::IssuerFound(_)) | None => return Err(Error::UnexpectedInput),
        }
    }
}

/// The authorization server `server_url` names now (after `challenge`, its last
/// `WWW-Authenticate`): what a client the person enters is bound to.
pub async fn find_issuer(
    host: &impl OAuthHost,
    server_url: &str,
    challenge: Option<String>,
) -> Result<String, Error> {
    let config = SignInConfig {
        server_url: server_url.to_owned(),
        challenge,
        redirect_uri: String::new(),
        client_name: String::new(),
        client: Default::default(),
        registered_clients: Vec::new(),
        previous: None,
        dpop: None,
        idp_session: None,
        purpose: Purpose::FindIssuer,
    };
    let mut flow = SignIn::new(config, Randomness { code_verifier: [0; 32], state: [0; 16] });
    loop {
        match flow.poll() {
            Some(Action::Send(request)) => match host.send(request).await {
                Ok(response) => flow.handle_response(host.now_ms(), response),
                Err(message) => flow.handle_transport_error(&message),
            },
            Some(Action::IssuerFound(issuer)) => return Ok(issuer),
            Some(Action::Finished(Err(error))) => return Err(error),
            _ => return Err(Error::UnexpectedInput),
        }
    }
}

/// Signs a request as it asks and sends it: the client assertion first (it is part of the
/// form), then the DPoP proof; an authorization server asking for a fresh nonce gets the
/// request once more, with a new assertion (its `jti` may have been spent) and a proof
/// carrying the nonce.
pub async fn transmit(
    host: &impl OAuthHost,
    dpop: Option<&Dpop>,
    signed: &SignedRequest,
) -> Result<Response, String> {
    let mut retried = false;
    loop {
        let mut request = signed.request.clone();
        if let Some(assertion) = &signed.assertion {
            let jwt = client_assertion(host, assertion).await?;
            let mut form =
                form_urlencoded::Serializer::new(request.body.take().unwrap_or_default());
            form.append_pair("client_assertion_type", CLIENT_ASSERTION_TYPE);
            form.append_pair("client_assertion", &jwt);
            request.body = Some(form.finish());
        }
        let proving = dpop.filter(|_| signed.proof);
        if let Some(dpop) = proving {
            let proof = dpop.make_proof(request.method, &request.url, None).await?;
            request.headers.push(("DPoP".into(), proof));
        }
        let url = request.url.clone();
        let response = host.send(request).await?;
        if let Some(dpop) = dpop {
            dpop.learn(&url, &response.headers);
        }
        let asks_nonce = proving.is_some()
            && dpop::is_token_nonce_challenge(response.status, &response.headers, &response.body);
        if asks_nonce && !retried {
            retried = true;
            continue;
        }
        return Ok(response);
    }
}

/// RFC 7523 §3: issuer and subject the client, audience the authorization server, a fresh
/// `jti`, a short life.
async fn client_assertion(
    host: &impl OAuthHost,
    assertion: &ClientAssertion,
) -> Result<String, String> {
    let key = pkcs8_from_pem(assertion.private_key.expose())
        .map_err(|problem| Text::new(problem.message_key()).to_string())?;
    let jti = host.random_id().ok_or_else(|| Text::new("oauthNoRandomness").to_string())?;
    let now = host.now_ms() / 1000;
    let header = json!({ "alg": ES256, "typ": "JWT" });
    let claims = json!({
        "iss": assertion.client_id,
        "sub": assertion.client_id,
        "aud": assertion.audience,
        "jti": jose::base64url(&jti),
        "iat": now,
        "exp": now + ASSERTION_LIFETIME_S,
    });
    let input = jose::signing_input(&header, &claims);
    let signature = host.sign_with_key(&key, input.as_bytes()).await?;
    jose::compact(&input, &signature)
}

/// Refreshes the access token (with a proof of `dpop`'s key when the token is bound to it).
pub async fn refresh(
    host: &impl OAuthHost,
    credentials: &Credentials,
    dpop: Option<&Dpop>,
) -> Result<Credentials, Error> {
    let request = renewal::refresh_request(credentials)?;
    let url = redact_url(&request.request.url);
    let response = transmit(host, dpop, &request).await.map_err(|message| Error::Unreachable {
        step: Step::Token,
        url,
        message,
    })?;
    renewal::refreshed(credentials, host.now_ms(), &response)
}

/// Revokes the tokens where the server offers RFC 7009 revocation; the outcome of each.
pub async fn revoke(host: &impl OAuthHost, credentials: &Credentials) -> Vec<Result<(), Error>> {
    let mut results = Vec::new();
    for request in renewal::revocation_requests(credentials) {
        let url = request.request.url.clone();
        let result = match transmit(host, None, &request).await {
            Ok(response) => renewal::revocation_result(&url, &response),
            Err(message) => {
                Err(Error::Unreachable { step: Step::Revocation, url: redact_url(&url), message })
            }
        };
        results.push(result);
    }
    results
}
