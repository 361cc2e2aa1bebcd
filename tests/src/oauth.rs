//! The native driver of `core::oauth`: HTTP through reqwest with redirects off, the authorization
//! page fetched headlessly (by default the authorization server must answer `/authorize` at once
//! with a 302 to the redirect URI; with [`OAuthHost::with_pages`] a headless person goes through
//! `oidc-provider`'s login and consent pages), random bytes from the OS, the wall clock.
//!
//! The host keeps what core's [`Authorizer`] hands it in memory (the worker keeps it in
//! `chrome.storage`) and counts the authorization pages it opened. It holds one DPoP key, made
//! when a sign-in first asks for it (`crate::keys`), as a browser profile holds one per server.

use gemipanel_core::mcp::{self, Authorization, HttpRequest, Method};
use gemipanel_core::oauth::authorizer::AuthorizerHost;
pub use gemipanel_core::oauth::authorizer::{authorized, Authorizer, Failure, Interaction};
use gemipanel_core::oauth::dpop::ProofSigner;
use gemipanel_core::oauth::enterprise::IdpSession;
use gemipanel_core::oauth::{
    self, ClientOptions, Credentials, RegisteredClient, SignInConfig, SignedIn, MAX_DOCUMENT_BYTES,
};

use crate::keys::{self, NativeKey};
use std::cell::{Cell, RefCell};
use std::rc::Rc;

use crate::oidc::DevPages;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

/// Where the headless flow says the browser would return to. Never listened on: the driver
/// reads the redirect from the authorization server's `Location` header.
pub const REDIRECT_URI: &str = "http://127.0.0.1:9/oauth/callback";

pub fn now_ms() -> u64 {
    SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |d| d.as_millis() as u64)
}

pub fn randomness() -> oauth::Randomness {
    let mut code_verifier = [0u8; 32];
    let mut state = [0u8; 16];
    getrandom::fill(&mut code_verifier).expect("the OS has random bytes");
    getrandom::fill(&mut state).expect("the OS has random bytes");
    oauth::Randomness { code_verifier, state }
}

#[derive(Clone)]
pub struct OAuthHost {
    http: reqwest::Client,
    kept: Rc<Kept>,
    /// Who goes through the authorization pages; `None`: they must redirect at once.
    pages: Option<DevPages>,
    /// Whether sign-ins get a DPoP key (as in a browser with WebCrypto).
    with_dpop: bool,
}

/// What sign-in produced, as the worker would store it.
#[derive(Default)]
pub struct Kept {
    pub registered: RefCell<Vec<RegisteredClient>>,
    pub credentials: RefCell<Option<Credentials>>,
    /// How many authorization pages were opened.
    pub pages: Cell<u32>,
    /// The DPoP key, once a sign-in asked for one.
    pub key: RefCell<Option<Rc<NativeKey>>>,
    pub idp_sessions: RefCell<Vec<IdpSession>>,
}

impl Default for OAuthHost {
    fn default() -> Self {
        let http = reqwest::Client::builder()
            .redirect(reqwest::redirect::Policy::none())
            .timeout(Duration::from_secs(15))
            .pool_max_idle_per_host(0)
            .build()
            .unwrap_or_default();
        OAuthHost { http, kept: Rc::default(), pages: None, with_dpop: true }
    }
}

impl OAuthHost {
    /// A host whose authorization pages are gone through by `pages`.
    pub fn with_pages(pages: DevPages) -> Self {
        OAuthHost { pages: Some(pages), ..OAuthHost::default() }
    }

    /// A host without a DPoP key: every token is a bearer token.
    pub fn without_dpop(self) -> Self {
        OAuthHost { with_dpop: false, ..self }
    }

    pub fn kept(&self) -> &Kept {
        &self.kept
    }

    /// The DPoP key, as a signer (none before a sign-in asked for one).
    pub fn signer(&self) -> Option<Rc<dyn ProofSigner>> {
        self.kept.key.borrow().clone().map(|k| k as Rc<dyn ProofSigner>)
    }

    /// An authorizer for `server_url` whose header goes to `authorization`, with this host.
    pub fn authorizer(
        &self,
        server_url: &str,
        client: ClientOptions,
        authorization: Authorization,
    ) -> Authorizer {
        Authorizer::new(server_url, client, REDIRECT_URI, authorization, None, None)
    }

    /// Sends a request and reads at most one byte past the cap, so the machine sees the excess.
    pub async fn send(&self, request: HttpRequest) -> Result<oauth::Response, String> {
        let method = match request.method {
            Method::Get => reqwest::Method::GET,
            Method::Post => reqwest::Method::POST,
            Method::Delete => reqwest::Method::DELETE,
        };
        let mut builder = self.http.request(method, &request.url);
        for (name, value) in &request.headers {
            builder = builder.header(name, value);
        }
        if let Some(body) = request.body {
            builder = builder.body(body);
        }
        let mut response = builder.send().await.map_err(|e| e.to_string())?;
        let status = response.status().as_u16();
        let headers = response
            .headers()
            .iter()
            .map(|(n, v)| (n.to_string(), String::from_utf8_lossy(v.as_bytes()).into_owned()))
            .collect();
        let mut body = Vec::new();
        while let Some(chunk) = response.chunk().await.map_err(|e| e.to_string())? {
            body.extend_from_slice(&chunk);
            if body.len() > MAX_DOCUMENT_BYTES {
                body.truncate(MAX_DOCUMENT_BYTES + 1);
                break;
            }
        }
        Ok(oauth::Response { status, headers, body })
    }

    /// What a browser would do with the authorization page when the server approves at once:
    /// the URL its redirect points to.
    pub async fn open_headless(&self, url: &str) -> Result<String, String> {
        let response = self.http.get(url).send().await.map_err(|e| e.to_string())?;
        let location = response
            .headers()
            .get(reqwest::header::LOCATION)
            .and_then(|v| v.to_str().ok())
            .ok_or_else(|| {
                format!("the authorization page answered {} without a redirect", response.status())
            })?;
        let base = reqwest::Url::parse(url).map_err(|e| e.to_string())?;
        base.join(location).map(String::from).map_err(|e| e.to_string())
    }

    /// Drives one sign-in to its end (core's loop, this host's I/O).
    pub async fn sign_in(&self, config: SignInConfig) -> Result<SignedIn, oauth::Error> {
        oauth::drive::sign_in(self, config, randomness(), None, true).await
    }

    pub async fn refresh(&self, credentials: &Credentials) -> Result<Credentials, oauth::Error> {
        oauth::drive::refresh(self, credentials, None).await
    }

    /// Revokes both tokens; the result of each request.
    pub async fn revoke(&self, credentials: &Credentials) -> Vec<Result<(), oauth::Error>> {
        oauth::drive::revoke(self, credentials).await
    }
}

impl oauth::drive::OAuthHost for OAuthHost {
    async fn send(&self, request: HttpRequest) -> Result<oauth::Response, String> {
        eprintln!("oauth: {:?} {}", request.method, mcp::redact_url(&request.url));
        OAuthHost::send(self, request).await
    }

    async fn authorize(&self, url: &str) -> Option<String> {
        self.kept.pages.set(self.kept.pages.get() + 1);
        let landed = match &self.pages {
            Some(pages) => pages.complete(url).await,
            None => self.open_headless(url).await,
        };
        match landed {
            Ok(landed) => Some(landed),
            Err(message) => {
                eprintln!("oauth: the authorization page failed: {message}");
                None
            }
        }
    }

    fn now_ms(&self) -> u64 {
        now_ms()
    }

    fn random_id(&self) -> Option<[u8; 16]> {
        let mut id = [0u8; 16];
        getrandom::fill(&mut id).ok()?;
        Some(id)
    }

    async fn sign_with_key(&self, pkcs8: &[u8], input: &[u8]) -> Result<Vec<u8>, String> {
        keys::sign_with_pkcs8(pkcs8, input)
    }
}

impl AuthorizerHost for OAuthHost {
    fn randomness(&self) -> Option<oauth::Randomness> {
        Some(randomness())
    }

    async fn registered_clients(&self) -> Vec<RegisteredClient> {
        self.kept.registered.borrow().clone()
    }

    async fn keep_client(&self, client: &RegisteredClient) {
        let mut registered = self.kept.registered.borrow_mut();
        registered.retain(|r| r.issuer != client.issuer);
        registered.push(client.clone());
    }

    async fn keep_credentials(&self, credentials: Option<&Credentials>) {
        if let Some(c) = credentials {
            eprintln!("oauth: signed in at {} (scopes {:?})", c.issuer, c.scopes);
        }
        *self.kept.credentials.borrow_mut() = credentials.cloned();
    }

    async fn proof_signer(&self) -> Option<Rc<dyn ProofSigner>> {
        if !self.with_dpop {
            return None;
        }
        let key = self
            .kept
            .key
            .borrow_mut()
            .get_or_insert_with(|| Rc::new(NativeKey::generate()))
            .clone();
        Some(key)
    }

    async fn idp_sessions(&self) -> Vec<IdpSession> {
        self.kept.idp_sessions.borrow().clone()
    }

    async fn keep_idp_session(&self, session: &IdpSession) {
        let mut sessions = self.kept.idp_sessions.borrow_mut();
        sessions.retain(|s| !(s.issuer == session.issuer && s.client_id == session.client_id));
        sessions.push(session.clone());
    }
}
