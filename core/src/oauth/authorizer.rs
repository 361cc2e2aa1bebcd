//! One server's sign-in between requests: its credentials, the `Authorization` header its MCP
//! client sends, and what a refused request does next.
//!
//! Shared by the worker (fetch, `chrome.identity`, `chrome.storage`) and the native tests
//! (reqwest, a headless authorization page), so both run the same rules:
//!
//! * a token due within [`REFRESH_AHEAD_MS`](super::store::REFRESH_AHEAD_MS) is refreshed before
//!   the request leaves; a 401 refreshes once, then needs a sign-in;
//! * a sign-in opens the authorization page only when the person asked for it
//!   ([`Interaction::Allowed`]); a request on its own ends with [`Failure::NeedsSignIn`] and the
//!   challenge is kept for the click that follows;
//! * one renewal at a time: concurrent requests refused with the same token wait for the first
//!   one's refresh or sign-in and retry with its result instead of starting their own;
//! * a failed refresh loses nothing: the credentials stay (the next sign-in replaces them);
//! * a token bound to a DPoP key goes out with a proof of it; credentials bound to a key this
//!   host no longer has (the profile was copied, the key deleted) are not used at all, so the
//!   server asks for a clean sign-in instead of refusing proof after proof;
//! * client credentials, and enterprise sign-in while the identity provider's sign-in lasts,
//!   sign in again without the person when a request needs it.

use std::cell::RefCell;
use std::rc::Rc;

use super::dpop::{Dpop, ProofSigner};
use super::drive::{self, OAuthHost};
use super::enterprise::IdpSession;
use super::error::Error;
use super::recovery::{Reaction, Recovery};
use super::sign_in::{ClientOptions, Purpose, Randomness, SignInConfig};
use super::store::{Credentials, RegisteredClient};
use crate::mcp::{self, Authorization};
use crate::settings::{Secret, SignInMethod};
use crate::sync::FifoLock;
use crate::text::Text;

/// What the authorizer needs beyond HTTP and the authorization page: randomness and a place
/// to keep what sign-in produces.
#[allow(async_fn_in_trait)] // `?Send`: the browser host is single-threaded.
pub trait AuthorizerHost: OAuthHost {
    /// Fresh random bytes for one attempt; `None` when the platform has none to give.
    fn randomness(&self) -> Option<Randomness>;
    /// Clients registered earlier with any authorization server (one is reused per issuer).
    async fn registered_clients(&self) -> Vec<RegisteredClient>;
    async fn keep_client(&self, client: &RegisteredClient);
    /// The server's credentials changed (`None`: forgotten).
    async fn keep_credentials(&self, credentials: Option<&Credentials>);
    /// The server's DPoP key, made now when there is none; `None` when the platform has no
    /// way to make one (tokens are then bearer tokens).
    async fn proof_signer(&self) -> Option<Rc<dyn ProofSigner>>;
    /// Sign-ins at identity providers kept from before (one is reused per provider).
    async fn idp_sessions(&self) -> Vec<IdpSession>;
    async fn keep_idp_session(&self, session: &IdpSession);
}

/// Whether a sign-in may open the authorization page now.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Interaction {
    /// The person asked (a click): the page may open.
    Allowed,
    /// A request on its own: refresh silently, never open a page.
    Silent,
}

/// Why an authorized operation failed for good.
#[derive(Debug)]
pub enum Failure {
    /// The server failed in a way sign-in cannot fix.
    Mcp(mcp::Error),
    /// Signing in, refreshing or stepping up failed.
    OAuth(Error),
    /// A sign-in is needed and only the person can start it.
    NeedsSignIn,
}

impl Failure {
    pub fn text(&self, server_name: &str) -> Text {
        match self {
            Failure::Mcp(e) => e.text(),
            Failure::OAuth(e) => Text::new("errSignInFailed").arg(server_name).with(e.text()),
            Failure::NeedsSignIn => Text::new("errNeedsSignIn").arg(server_name),
        }
    }
}

impl std::fmt::Display for Failure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Failure::Mcp(e) => e.fmt(f),
            Failure::OAuth(e) => write!(f, "sign-in: {e}"),
            Failure::NeedsSignIn => f.write_str("sign-in needed"),
        }
    }
}

struct State {
    credentials: Option<Credentials>,
    /// Bumped at every change of `credentials`: a request refused with an older token retries
    /// with the new one instead of renewing again.
    generation: u64,
    /// The `WWW-Authenticate` of the last refusal, for the sign-in that follows.
    challenge: Option<String>,
}

pub struct Authorizer {
    server_url: String,
    client: ClientOptions,
    redirect_uri: String,
    client_name: String,
    authorization: Authorization,
    state: RefCell<State>,
    /// The server's DPoP key with its servers' nonces, once there is one.
    dpop: RefCell<Option<Rc<Dpop>>>,
    renewing: Rc<FifoLock>,
}

impl Authorizer {
    /// `stored`: credentials kept from before, used only when they are for `server_url` and,
    /// when bound to a DPoP key, when `signer` holds that key.
    pub fn new(
        server_url: &str,
        client: ClientOptions,
        redirect_uri: &str,
        authorization: Authorization,
        stored: Option<Credentials>,
        signer: Option<Rc<dyn ProofSigner>>,
    ) -> Self {
        let dpop = signer.map(Dpop::new);
        let key_held = |c: &Credentials| match &c.dpop_jkt {
            Some(jkt) => dpop.as_ref().is_some_and(|d| d.thumbprint() == jkt),
            None => true,
        };
        let mut credentials = stored.filter(|c| c.server_url == server_url && key_held(c));
        // The client's private key stays in the settings; the credentials name the client.
        if let (Some(credentials), Some(entered)) = (&mut credentials, &client.pre_registered) {
            if credentials.client.client_id == entered.client_id {
                credentials.client.private_key = entered.private_key.clone();
            }
        }
        set_header(&authorization, credentials.as_ref(), dpop.as_ref());
        Authorizer {
            server_url: server_url.to_owned(),
            client,
            redirect_uri: redirect_uri.to_owned(),
            client_name: "GemiPanel".into(),
            authorization,
            state: RefCell::new(State { credentials, generation: 0, challenge: None }),
            dpop: RefCell::new(dpop),
            renewing: Rc::default(),
        }
    }

    fn dpop(&self) -> Option<Rc<Dpop>> {
        self.dpop.borrow().clone()
    }

    pub fn credentials(&self) -> Option<Credentials> {
        self.state.borrow().credentials.clone()
    }

    pub fn is_signed_in(&self) -> bool {
        self.state.borrow().credentials.is_some()
    }

    fn generation(&self) -> u64 {
        self.state.borrow().generation
    }

    async fn keep(&self, host: &impl AuthorizerHost, credentials: Option<Credentials>) {
        host.keep_credentials(credentials.as_ref()).await;
        set_header(&self.authorization, credentials.as_ref(), self.dpop().as_ref());
        let mut state = self.state.borrow_mut();
        state.credentials = credentials;
        state.generation += 1;
    }

    /// Refreshes a token that expires within five minutes, before a request uses it. A failed
    /// refresh is not an error here: the request goes out and a 401 decides.
    pub async fn before_request(&self, host: &impl AuthorizerHost) {
        let due = |state: &State| {
            state
                .credentials
                .as_ref()
                .filter(|c| c.refresh_due(host.now_ms()) && c.can_refresh())
                .cloned()
        };
        if due(&self.state.borrow()).is_none() {
            return;
        }
        let _turn = self.renewing.lock().await;
        // Someone else may have refreshed while this one waited.
        let Some(credentials) = due(&self.state.borrow()) else { return };
        if let Ok(renewed) = drive::refresh(host, &credentials, self.dpop().as_deref()).await {
            self.keep(host, Some(renewed)).await;
        }
    }

    /// Signs in through the authorization page (the person asked for it).
    pub async fn sign_in(&self, host: &impl AuthorizerHost) -> Result<Credentials, Error> {
        let _turn = self.renewing.lock().await;
        self.sign_in_now(host, true).await
    }

    /// Whether a sign-in can go without the person now: client credentials always, enterprise
    /// sign-in while the identity provider's sign-in is kept and alive.
    async fn signs_in_silently(&self, host: &impl AuthorizerHost) -> bool {
        match (self.client.method, &self.client.identity_provider) {
            (SignInMethod::ClientCredentials, _) => true,
            (SignInMethod::Enterprise, Some(provider)) => {
                let now = host.now_ms();
                let sessions = host.idp_sessions().await;
                sessions.iter().any(|s| s.usable(&provider.issuer, &provider.client_id, now))
            }
            _ => false,
        }
    }

    /// Signs in; without `interactive` only as far as no page has to open.
    async fn sign_in_now(
        &self,
        host: &impl AuthorizerHost,
        interactive: bool,
    ) -> Result<Credentials, Error> {
        let (challenge, previous) = {
            let state = self.state.borrow();
            (state.challenge.clone(), state.credentials.clone())
        };
        if self.dpop().is_none() {
            let signer = host.proof_signer().await;
            *self.dpop.borrow_mut() = signer.map(Dpop::new);
        }
        let dpop = self.dpop();
        let provider = self.client.identity_provider.as_ref();
        let idp_session = match provider {
            Some(provider) => host
                .idp_sessions()
                .await
                .into_iter()
                .find(|s| s.usable(&provider.issuer, &provider.client_id, host.now_ms())),
            None => None,
        };
        let config = SignInConfig {
            server_url: self.server_url.clone(),
            challenge,
            redirect_uri: self.redirect_uri.clone(),
            client_name: self.client_name.clone(),
            client: self.client.clone(),
            registered_clients: host.registered_clients().await,
            previous,
            dpop: dpop.as_ref().map(|d| d.thumbprint().to_owned()),
            idp_session,
            purpose: Purpose::SignIn,
        };
        let random = host.randomness().ok_or(Error::NoRandomness)?;
        let signed_in = drive::sign_in(host, config, random, dpop.as_deref(), interactive).await?;
        if let Some(registered) = &signed_in.registered_client {
            host.keep_client(registered).await;
        }
        if let Some(session) = &signed_in.idp_session {
            host.keep_idp_session(session).await;
        }
        self.state.borrow_mut().challenge = None;
        let mut credentials = signed_in.credentials;
        if let Some(entered) = &self.client.pre_registered {
            if credentials.client.client_id == entered.client_id {
                credentials.client.private_key = entered.private_key.clone();
            }
        }
        self.keep(host, Some(credentials.clone())).await;
        Ok(credentials)
    }

    /// Forgets the credentials, revoking them first where the server offers revocation. The
    /// outcome of each revocation (the credentials are forgotten either way).
    pub async fn sign_out(&self, host: &impl AuthorizerHost) -> Vec<Result<(), Error>> {
        let _turn = self.renewing.lock().await;
        let Some(credentials) = self.credentials() else { return Vec::new() };
        let revoked = drive::revoke(host, &credentials).await;
        self.keep(host, None).await;
        revoked
    }

    /// After a failed request sent with credentials of `sent` generation: `Ok` to retry it,
    /// `Err` to give up.
    async fn recover(
        &self,
        host: &impl AuthorizerHost,
        recovery: &mut Recovery,
        error: mcp::Error,
        sent: u64,
        interaction: Interaction,
    ) -> Result<(), Failure> {
        let Some(status) = error.status().filter(|s| matches!(s, 401 | 403)) else {
            return Err(Failure::Mcp(error));
        };
        let _turn = self.renewing.lock().await;
        if self.generation() != sent {
            // Renewed by another request meanwhile: retry with the new token.
            return Ok(());
        }
        let challenge = error.www_authenticate().map(str::to_owned);
        let credentials = self.credentials();
        let reaction =
            recovery.react(&self.server_url, status, challenge.as_deref(), credentials.as_ref());
        if challenge.is_some() {
            self.state.borrow_mut().challenge = challenge;
        }
        let reaction = match reaction {
            Some(Reaction::Refresh) => {
                let Some(credentials) = credentials else { return Err(Failure::Mcp(error)) };
                match drive::refresh(host, &credentials, self.dpop().as_deref()).await {
                    Ok(renewed) => {
                        self.keep(host, Some(renewed)).await;
                        return Ok(());
                    }
                    Err(_) => recovery.refresh_failed(&self.server_url),
                }
            }
            Some(reaction) => reaction,
            None => return Err(Failure::Mcp(error)),
        };
        let interactive = interaction == Interaction::Allowed;
        match reaction {
            Reaction::GiveUp(e) => Err(Failure::OAuth(e)),
            _ if !interactive && !self.signs_in_silently(host).await => Err(Failure::NeedsSignIn),
            _ => match self.sign_in_now(host, interactive).await {
                Ok(_) => Ok(()),
                Err(Error::NeedsInteraction) => Err(Failure::NeedsSignIn),
                Err(e) => Err(Failure::OAuth(e)),
            },
        }
    }
}

/// Puts the credentials' token into the `Authorization` the client sends: bound to `dpop`'s
/// key when the token is (the authorizer only keeps bound credentials whose key it holds).
fn set_header(
    authorization: &Authorization,
    credentials: Option<&Credentials>,
    dpop: Option<&Rc<Dpop>>,
) {
    match (credentials, dpop) {
        (Some(c), Some(dpop)) if c.is_bound() => {
            authorization.set_bound(&c.access_token, dpop.clone())
        }
        (Some(c), _) => authorization.set(Some(Secret::new(c.authorization()))),
        (None, _) => authorization.set(None),
    }
}

/// Runs `operation` until it succeeds or recovery gives up: refreshing ahead of expiry, then
/// refreshing, signing in or stepping up as each refusal asks.
pub async fn authorized<T, F, Fut>(
    auth: &Authorizer,
    host: &impl AuthorizerHost,
    interaction: Interaction,
    mut operation: F,
) -> Result<T, Failure>
where
    F: FnMut() -> Fut,
    Fut: std::future::Future<Output = Result<T, mcp::Error>>,
{
    let mut recovery = Recovery::default();
    loop {
        auth.before_request(host).await;
        let sent = auth.generation();
        match operation().await {
            Ok(value) => return Ok(value),
            Err(error) => auth.recover(host, &mut recovery, error, sent, interaction).await?,
        }
    }
}

#[cfg(test)]
mod tests {
    //! The authorizer's own rules, with a host that answers the token endpoint from a script.
    //! Sign-in against real authorization servers is tested in `tests/` and end to end.

    use super::*;
    use crate::mcp::error::Kind;
    use crate::oauth::store::{ClientAuth, TokenEndpointAuth};
    use futures::executor::block_on;
    use std::cell::Cell;

    const SERVER: &str = "https://mcp.example.com/mcp";
    const TOKEN_URL: &str = "https://auth.example.com/token";

    #[derive(Default)]
    struct ScriptedHost {
        /// Token endpoint answers, oldest first.
        answers: RefCell<Vec<(u16, &'static str)>>,
        token_requests: Cell<u32>,
        pages: Cell<u32>,
        kept: RefCell<Vec<Option<String>>>,
    }

    impl OAuthHost for ScriptedHost {
        async fn send(
            &self,
            request: crate::mcp::HttpRequest,
        ) -> Result<super::super::Response, String> {
            assert_eq!(request.url, TOKEN_URL, "only the token endpoint is scripted");
            self.token_requests.set(self.token_requests.get() + 1);
            // Like a real exchange, the answer comes later: other requests run meanwhile.
            yield_once().await;
            let (status, body) = self.answers.borrow_mut().remove(0);
            Ok(super::super::Response {
                status,
                headers: vec![("content-type".into(), "application/json".into())],
                body: body.as_bytes().to_vec(),
            })
        }

        async fn authorize(&self, _url: &str) -> Option<String> {
            self.pages.set(self.pages.get() + 1);
            None
        }

        fn now_ms(&self) -> u64 {
            1_000_000
        }

        fn random_id(&self) -> Option<[u8; 16]> {
            Some([5; 16])
        }

        async fn sign_with_key(&self, _pkcs8: &[u8], _input: &[u8]) -> Result<Vec<u8>, String> {
            Err("no client keys here".into())
        }
    }

    impl AuthorizerHost for ScriptedHost {
        fn randomness(&self) -> Option<Randomness> {
            Some(Randomness { code_verifier: [7; 32], state: [9; 16] })
        }
        async fn registered_clients(&self) -> Vec<RegisteredClient> {
            Vec::new()
        }
        async fn keep_client(&self, _client: &RegisteredClient) {}
        async fn keep_credentials(&self, credentials: Option<&Credentials>) {
            self.kept.borrow_mut().push(credentials.map(|c| c.access_token.expose().to_owned()));
        }
        async fn proof_signer(&self) -> Option<Rc<dyn ProofSigner>> {
            None
        }
        async fn idp_sessions(&self) -> Vec<IdpSession> {
            Vec::new()
        }
        async fn keep_idp_session(&self, _session: &IdpSession) {}
    }

    async fn yield_once() {
        let mut yielded = false;
        std::future::poll_fn(|cx| {
            if yielded {
                return std::task::Poll::Ready(());
            }
            yielded = true;
            cx.waker().wake_by_ref();
            std::task::Poll::Pending
        })
        .await
    }

    fn credentials(access: &str, expires_at_ms: Option<u64>) -> Credentials {
        Credentials {
            server_url: SERVER.into(),
            issuer: "https://auth.example.com".into(),
            resource: SERVER.into(),
            access_token: Secret::new(access),
            refresh_token: Some(Secret::new("refresh-1")),
            expires_at_ms,
            issued_at_ms: None,
            scopes: vec!["mcp".into()],
            requested_scopes: vec!["mcp".into()],
            token_endpoint: TOKEN_URL.into(),
            revocation_endpoint: None,
            client: ClientAuth {
                client_id: "gemipanel".into(),
                client_secret: None,
                method: TokenEndpointAuth::None,
                private_key: None,
            },
            dpop_jkt: None,
            grant: Default::default(),
        }
    }

    fn refused(status: u16) -> mcp::Error {
        let www_authenticate = Some(r#"Bearer resource_metadata="https://mcp.example.com/.well-known/oauth-protected-resource""#.into());
        mcp::Error::new(Kind::Http { status, message: None, www_authenticate, rpc: None }, SERVER)
    }

    const NEW_TOKEN: &str =
        r#"{"access_token":"access-2","token_type":"Bearer","expires_in":3600}"#;

    fn authorizer(stored: Option<Credentials>) -> (Authorizer, Authorization) {
        let authorization = Authorization::default();
        let auth = Authorizer::new(
            SERVER,
            ClientOptions::default(),
            "https://ext.chromiumapp.org/oauth",
            authorization.clone(),
            stored,
            None,
        );
        (auth, authorization)
    }

    #[test]
    fn stored_credentials_for_another_url_are_not_used() {
        let mut other = credentials("access-1", None);
        other.server_url = "https://elsewhere.example.com/mcp".into();
        let (auth, authorization) = authorizer(Some(other));
        assert!(!auth.is_signed_in());
        assert_eq!(authorization.header_value(), None);
        let (auth, authorization) = authorizer(Some(credentials("access-1", None)));
        assert!(auth.is_signed_in());
        assert_eq!(authorization.header_value().as_deref(), Some("Bearer access-1"));
    }

    #[test]
    fn credentials_bound_to_a_key_that_is_gone_are_not_used() {
        let signer: Rc<dyn ProofSigner> = crate::oauth::dpop::tests::TestSigner::new(4);
        let held = Dpop::new(signer.clone());
        let mut bound = credentials("access-1", None);
        bound.dpop_jkt = Some(held.thumbprint().to_owned());
        // The key is there: the token goes out bound, as `DPoP`.
        let authorization = Authorization::default();
        let options = ClientOptions::default();
        let redirect = "https://ext.chromiumapp.org/oauth";
        let auth = Authorizer::new(
            SERVER,
            options.clone(),
            redirect,
            authorization.clone(),
            Some(bound.clone()),
            Some(signer),
        );
        assert!(auth.is_signed_in());
        assert_eq!(authorization.header_value().as_deref(), Some("DPoP access-1"));
        assert!(authorization.proof().is_some());
        // Another profile, or the key deleted: no key, or another one. Not signed in at all, so
        // the server's 401 leads to a clean sign-in, never to a token sent without its proof.
        for other in
            [None, Some(crate::oauth::dpop::tests::TestSigner::new(5) as Rc<dyn ProofSigner>)]
        {
            let authorization = Authorization::default();
            let auth = Authorizer::new(
                SERVER,
                options.clone(),
                redirect,
                authorization.clone(),
                Some(bound.clone()),
                other,
            );
            assert!(!auth.is_signed_in());
            assert_eq!(authorization.header_value(), None);
        }
    }

    #[test]
    fn without_a_click_a_needed_sign_in_opens_no_page() {
        let host = ScriptedHost::default();
        let (auth, _) = authorizer(None);
        let result: Result<(), Failure> =
            block_on(authorized(&auth, &host, Interaction::Silent, || async { Err(refused(401)) }));
        assert!(matches!(result, Err(Failure::NeedsSignIn)), "{result:?}");
        assert_eq!(host.pages.get(), 0);
        assert_eq!(host.token_requests.get(), 0);
    }

    #[test]
    fn a_401_refreshes_once_and_the_request_is_retried_with_the_new_token() {
        let host = ScriptedHost::default();
        host.answers.borrow_mut().push((200, NEW_TOKEN));
        let (auth, authorization) = authorizer(Some(credentials("access-1", None)));
        let attempts = Cell::new(0);
        let result = block_on(authorized(&auth, &host, Interaction::Silent, || {
            attempts.set(attempts.get() + 1);
            let header = authorization.header_value();
            async move {
                match header.as_deref() {
                    Some("Bearer access-2") => Ok("answered"),
                    _ => Err(refused(401)),
                }
            }
        }));
        assert_eq!(result.unwrap(), "answered");
        assert_eq!(attempts.get(), 2);
        assert_eq!(host.token_requests.get(), 1);
        assert_eq!(*host.kept.borrow(), [Some("access-2".to_owned())]);
    }

    #[test]
    fn a_refused_refresh_needs_sign_in_and_keeps_the_credentials() {
        let host = ScriptedHost::default();
        host.answers.borrow_mut().push((400, r#"{"error":"invalid_grant"}"#));
        let (auth, authorization) = authorizer(Some(credentials("access-1", None)));
        let result: Result<(), Failure> =
            block_on(authorized(&auth, &host, Interaction::Silent, || async { Err(refused(401)) }));
        assert!(matches!(result, Err(Failure::NeedsSignIn)), "{result:?}");
        assert_eq!(host.pages.get(), 0);
        assert!(auth.is_signed_in(), "nothing is lost: the next sign-in replaces them");
        assert!(host.kept.borrow().is_empty());
        assert_eq!(authorization.header_value().as_deref(), Some("Bearer access-1"));
    }

    #[test]
    fn a_token_about_to_expire_is_refreshed_before_the_request() {
        let host = ScriptedHost::default();
        host.answers.borrow_mut().push((200, NEW_TOKEN));
        // Expires in one minute: inside the five minutes ahead.
        let (auth, authorization) = authorizer(Some(credentials("access-1", Some(1_060_000))));
        let result = block_on(authorized(&auth, &host, Interaction::Silent, || {
            let header = authorization.header_value();
            async move { Ok::<_, mcp::Error>(header) }
        }));
        assert_eq!(result.unwrap().as_deref(), Some("Bearer access-2"));
        assert_eq!(host.token_requests.get(), 1);
    }

    #[test]
    fn requests_refused_together_share_one_refresh() {
        let host = ScriptedHost::default();
        host.answers.borrow_mut().push((200, NEW_TOKEN));
        let (auth, authorization) = authorizer(Some(credentials("access-1", None)));
        let call = || {
            authorized(&auth, &host, Interaction::Silent, || {
                let header = authorization.header_value();
                async move {
                    match header.as_deref() {
                        Some("Bearer access-2") => Ok(()),
                        _ => Err(refused(401)),
                    }
                }
            })
        };
        let (a, b) = block_on(futures::future::join(call(), call()));
        assert!(a.is_ok() && b.is_ok(), "{a:?} {b:?}");
        assert_eq!(host.token_requests.get(), 1, "the second waited for the first's refresh");
    }

    #[test]
    fn a_failure_sign_in_cannot_fix_is_returned_as_is() {
        let host = ScriptedHost::default();
        let (auth, _) = authorizer(Some(credentials("access-1", None)));
        let result: Result<(), Failure> =
            block_on(authorized(&auth, &host, Interaction::Allowed, || async {
                Err(refused(500))
            }));
        assert!(matches!(result, Err(Failure::Mcp(e)) if e.status() == Some(500)));
        assert_eq!(host.token_requests.get(), 0);
    }

    #[test]
    fn sign_out_forgets_the_credentials_and_the_header() {
        let host = ScriptedHost::default();
        let (auth, authorization) = authorizer(Some(credentials("access-1", None)));
        let revoked = block_on(auth.sign_out(&host));
        assert!(revoked.is_empty(), "no revocation endpoint, nothing to revoke");
        assert!(!auth.is_signed_in());
        assert_eq!(authorization.header_value(), None);
        assert_eq!(*host.kept.borrow(), [None]);
    }
}
