//! Running the sign-in machine and the renewals against a host: one loop, shared by the worker
//! (fetch and `chrome.identity`) and the native driver of the tests (reqwest, a headless page).

use super::error::{Error, Step};
use super::exchange::Response;
use super::renewal;
use super::sign_in::{Action, Randomness, SignIn, SignInConfig, SignedIn};
use super::store::Credentials;
use crate::mcp::{redact_url, HttpRequest};

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
}

/// Drives one sign-in to its end.
pub async fn sign_in(
    host: &impl OAuthHost,
    config: SignInConfig,
    random: Randomness,
) -> Result<SignedIn, Error> {
    let mut flow = SignIn::new(config, random);
    loop {
        match flow.poll() {
            Some(Action::Send(request)) => match host.send(request).await {
                Ok(response) => flow.handle_response(host.now_ms(), response),
                Err(message) => flow.handle_transport_error(&message),
            },
            Some(Action::OpenAuthorizationPage(url)) => match host.authorize(&url).await {
                Some(landed) => flow.handle_redirect(&landed),
                None => flow.cancel(),
            },
            Some(Action::Finished(outcome)) => return outcome.map(|signed_in| *signed_in),
            None => return Err(Error::UnexpectedInput),
        }
    }
}

/// Refreshes the access token.
pub async fn refresh(
    host: &impl OAuthHost,
    credentials: &Credentials,
) -> Result<Credentials, Error> {
    let request = renewal::refresh_request(credentials)?;
    let url = redact_url(&request.url);
    let response = host.send(request).await.map_err(|message| Error::Unreachable {
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
        let url = request.url.clone();
        let result = match host.send(request).await {
            Ok(response) => renewal::revocation_result(&url, &response),
            Err(message) => {
                Err(Error::Unreachable { step: Step::Revocation, url: redact_url(&url), message })
            }
        };
        results.push(result);
    }
    results
}
