//! The native driver of `core::oauth`: HTTP through reqwest with redirects off, the authorization
//! page fetched headlessly (by default the authorization server must answer `/authorize` at once
//! with a 302 to the redirect URI; with [`OAuthHost::with_pages`] a headless person goes through
//! `oidc-provider`'s login and consent pages), random bytes from the OS, the wall clock.
//!
//! [`Authorizer`] keeps one server's sign-in the way the worker does: credentials per issuer,
//! registered clients per issuer, the token in the MCP client's `Authorization`, and
//! [`Recovery`] deciding what a refused request does next.

use gemipanel_core::mcp::{self, Authorization, HttpRequest, Method};
use gemipanel_core::oauth::{
    self, ClientOptions, Credentials, Reaction, Recovery, RegisteredClient, SignInConfig, SignedIn,
    MAX_DOCUMENT_BYTES,
};
use gemipanel_core::settings::Secret;

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
    /// Who goes through the authorization pages; `None`: they must redirect at once.
    pages: Option<DevPages>,
}

impl Default for OAuthHost {
    fn default() -> Self {
        let http = reqwest::Client::builder()
            .redirect(reqwest::redirect::Policy::none())
            .timeout(Duration::from_secs(15))
            .pool_max_idle_per_host(0)
            .build()
            .unwrap_or_default();
        OAuthHost { http, pages: None }
    }
}

impl OAuthHost {
    /// A host whose authorization pages are gone through by `pages`.
    pub fn with_pages(pages: DevPages) -> Self {
        OAuthHost { pages: Some(pages), ..OAuthHost::default() }
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
        oauth::drive::sign_in(self, config, randomness()).await
    }

    pub async fn refresh(&self, credentials: &Credentials) -> Result<Credentials, oauth::Error> {
        oauth::drive::refresh(self, credentials).await
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
}

/// One server's sign-in, kept as the worker keeps it.
pub struct Authorizer {
    pub host: OAuthHost,
    pub server_url: String,
    /// Where the authorization server sends the browser back to ([`REDIRECT_URI`] unless set).
    pub redirect_uri: String,
    /// Whether a sign-in may be started by itself. The worker opens the authorization page only
    /// inside a person's click: without one (`false`) a request that needs a sign-in fails with
    /// the reason instead, and the server shows "needs sign-in".
    pub interactive: bool,
    pub client: ClientOptions,
    pub credentials: Option<Credentials>,
    pub registered: Vec<RegisteredClient>,
    /// Shared with the MCP client's `ServerConfig::authorization`.
    pub authorization: Authorization,
    /// How many sign-ins (authorization pages) this authorizer has run.
    pub sign_ins: u32,
}

impl Authorizer {
    pub fn new(server_url: &str, client: ClientOptions, authorization: Authorization) -> Self {
        Authorizer {
            host: OAuthHost::default(),
            server_url: server_url.to_owned(),
            redirect_uri: REDIRECT_URI.into(),
            interactive: true,
            client,
            credentials: None,
            registered: Vec::new(),
            authorization,
            sign_ins: 0,
        }
    }

    fn keep(&mut self, credentials: Credentials) {
        self.authorization.set(Some(Secret::new(credentials.authorization())));
        self.credentials = Some(credentials);
    }

    /// Refreshes ahead of expiry, as the worker does before each request.
    pub async fn before_request(&mut self) {
        let Some(credentials) = &self.credentials else { return };
        if credentials.refresh_due(now_ms()) && credentials.can_refresh() {
            match self.host.refresh(credentials).await {
                Ok(renewed) => self.keep(renewed),
                Err(e) => eprintln!("oauth: refresh ahead of expiry failed: {e}"),
            }
        }
    }

    pub async fn sign_in(&mut self, challenge: Option<&str>) -> Result<(), oauth::Error> {
        self.sign_ins += 1;
        let config = SignInConfig {
            server_url: self.server_url.clone(),
            challenge: challenge.map(str::to_owned),
            redirect_uri: self.redirect_uri.clone(),
            client_name: "GemiPanel".into(),
            client: self.client.clone(),
            registered_clients: self.registered.clone(),
            previous: self.credentials.clone(),
        };
        let signed_in = self.host.sign_in(config).await?;
        if let Some(registered) = signed_in.registered_client {
            self.registered.retain(|r| r.issuer != registered.issuer);
            self.registered.push(registered);
        }
        if let Some(retired) = &signed_in.retired_issuer {
            eprintln!("oauth: the server moved away from {retired}; its tokens are forgotten");
        }
        eprintln!(
            "oauth: signed in at {} (scopes {:?})",
            signed_in.credentials.issuer, signed_in.credentials.scopes
        );
        self.keep(signed_in.credentials);
        Ok(())
    }

    /// Signs in when this authorizer may (see [`Authorizer::interactive`]); else fails with
    /// `why` a sign-in is needed.
    async fn sign_in_if_allowed(
        &mut self,
        challenge: Option<&str>,
        why: oauth::Error,
    ) -> Result<(), Failure> {
        if !self.interactive {
            return Err(Failure::OAuth(why));
        }
        self.sign_in(challenge).await.map_err(Failure::OAuth)
    }

    /// After a failed MCP request: `Ok` to retry it, `Err` to give up.
    pub async fn recover(
        &mut self,
        recovery: &mut Recovery,
        error: mcp::Error,
    ) -> Result<(), Failure> {
        let challenge = error.www_authenticate().map(str::to_owned);
        let credentials = self.credentials.as_ref();
        let reaction = error.status().and_then(|status| {
            recovery.react(&self.server_url, status, challenge.as_deref(), credentials)
        });
        let challenge = challenge.as_deref();
        match reaction {
            None => Err(Failure::Mcp(error)),
            Some(Reaction::Refresh) => {
                let Some(credentials) = &self.credentials else { return Err(Failure::Mcp(error)) };
                match self.host.refresh(credentials).await {
                    Ok(renewed) => {
                        self.keep(renewed);
                        Ok(())
                    }
                    Err(e) => {
                        eprintln!("oauth: refresh after 401 failed: {e}");
                        match recovery.refresh_failed(&self.server_url) {
                            Reaction::GiveUp(e) => Err(Failure::OAuth(e)),
                            _ => self.sign_in_if_allowed(challenge, e).await,
                        }
                    }
                }
            }
            Some(Reaction::SignIn) => {
                self.sign_in_if_allowed(challenge, oauth::Error::NoRefreshToken).await
            }
            Some(Reaction::StepUp) => {
                let scopes = challenge
                    .and_then(oauth::challenge::BearerChallenge::from_header)
                    .map(|c| c.scopes)
                    .unwrap_or_default();
                let server = mcp::redact_url(&self.server_url);
                let why = oauth::Error::InsufficientScope { server, scopes };
                self.sign_in_if_allowed(challenge, why).await
            }
            Some(Reaction::GiveUp(e)) => Err(Failure::OAuth(e)),
        }
    }
}

/// Runs `operation` until it succeeds or recovery gives up: refreshing ahead of expiry, then
/// signing in, refreshing or stepping up as each refusal asks, as the worker does.
pub async fn authorized<T, F, Fut>(auth: &mut Authorizer, mut operation: F) -> Result<T, Failure>
where
    F: FnMut() -> Fut,
    Fut: std::future::Future<Output = Result<T, mcp::Error>>,
{
    let mut recovery = Recovery::default();
    loop {
        auth.before_request().await;
        match operation().await {
            Ok(value) => return Ok(value),
            Err(error) => auth.recover(&mut recovery, error).await?,
        }
    }
}

/// Why a request failed for good.
#[derive(Debug)]
pub enum Failure {
    /// The server failed in a way sign-in cannot fix.
    Mcp(mcp::Error),
    /// Sign-in failed or gave up.
    OAuth(oauth::Error),
}

impl std::fmt::Display for Failure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Failure::Mcp(e) => e.fmt(f),
            Failure::OAuth(e) => write!(f, "sign-in: {e}"),
        }
    }
}
