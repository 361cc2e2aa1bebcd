//! One sign-in to one MCP server, as a state machine that performs no I/O.
//!
//! The driver asks [`SignIn::poll`] what to do next: send an HTTP request and feed the answer
//! back ([`SignIn::handle_response`]), open the authorization page and feed back the URL the
//! browser was sent to ([`SignIn::handle_redirect`]), or take the outcome. Time and random bytes
//! come from the driver too.
//!
//! The steps, each skipped when it does not apply:
//! 1. protected-resource metadata (RFC 9728), its `resource` checked against the server's URL;
//!    without any, the MCP 2025-03-26 fallbacks;
//! 2. authorization-server metadata (RFC 8414 / OpenID Connect), its `issuer` checked, PKCE S256
//!    required, every endpoint through the learned-URL policy;
//! 3. the client identity: the one entered for the server, a Client ID Metadata Document, the
//!    one registered before with this issuer, a new registration (RFC 7591), else a message;
//! 4. the authorization page with PKCE, `state`, the RFC 8707 `resource` and the chosen scopes;
//!    its answer checked for `state` and the RFC 9207 `iss`;
//! 5. the code exchanged for tokens.
//!
//! Nothing is stored by the machine: the outcome carries everything worth keeping, and a failed
//! sign-in leaves nothing behind.

use std::collections::VecDeque;

use super::challenge::BearerChallenge;
use super::discovery::{self, DefaultEndpoints};
use super::error::{Error, Step};
use super::exchange::{self, Response};
use super::learned::UrlRules;
use super::metadata::{AuthorizationServerMetadata, ProtectedResourceMetadata};
use super::pkce::{self, Pkce};
use super::registration::{ClientInformation, ClientMetadata};
use super::scopes;
use super::store::{ClientAuth, Credentials, RegisteredClient, TokenEndpointAuth};
use super::token::{ErrorResponse, TokenResponse};
use crate::mcp::{redact_url, HttpRequest};
use crate::settings::{OAuthClient, Secret};
use crate::web_url::{self, WebUrl};

/// What a sign-in starts from.
#[derive(Clone)]
pub struct SignInConfig {
    /// The MCP server's URL as configured.
    pub server_url: String,
    /// The `WWW-Authenticate` header of the answer that asked for sign-in, if any.
    pub challenge: Option<String>,
    /// Where the authorization server sends the browser back to.
    pub redirect_uri: String,
    /// The name shown on the consent page of a registered client.
    pub client_name: String,
    pub client: ClientOptions,
    /// Clients registered before, per issuer; one for the chosen issuer is reused.
    pub registered_clients: Vec<RegisteredClient>,
    /// The credentials this sign-in replaces (expired, revoked, or short of scopes).
    pub previous: Option<Credentials>,
}

/// Without the server URL's query, which may carry a key.
impl std::fmt::Debug for SignInConfig {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SignInConfig")
            .field("server_url", &redact_url(&self.server_url))
            .field("challenge", &self.challenge)
            .field("redirect_uri", &self.redirect_uri)
            .field("client", &self.client)
            .field("registered_clients", &self.registered_clients.len())
            .field("previous", &self.previous)
            .finish_non_exhaustive()
    }
}

/// The client identity the person configured for this server.
#[derive(Debug, Clone, Default)]
pub struct ClientOptions {
    pub pre_registered: Option<PreRegistered>,
    /// An https URL serving a Client ID Metadata Document for our redirect URI.
    pub metadata_document_url: Option<String>,
}

impl ClientOptions {
    /// What the person configured for a server. An id they entered stays bound to the issuer
    /// it was first used with (the one of `stored`, when those credentials used that id).
    pub fn for_server(configured: &OAuthClient, stored: Option<&Credentials>) -> Self {
        let pre_registered = configured.client_id.clone().map(|client_id| {
            let issuer =
                stored.filter(|c| c.client.client_id == client_id).map(|c| c.issuer.clone());
            PreRegistered { client_id, client_secret: configured.client_secret.clone(), issuer }
        });
        ClientOptions { pre_registered, metadata_document_url: configured.metadata_url.clone() }
    }
}

/// A client id (and secret) the person entered, from a registration of their own.
#[derive(Debug, Clone)]
pub struct PreRegistered {
    pub client_id: String,
    pub client_secret: Option<Secret>,
    /// The issuer the id was first used with: an id belongs to one authorization server.
    pub issuer: Option<String>,
}

/// Random bytes for one attempt.
pub struct Randomness {
    pub code_verifier: [u8; 32],
    pub state: [u8; 16],
}

/// A successful sign-in: everything to keep.
#[derive(Debug, Clone)]
pub struct SignedIn {
    pub credentials: Credentials,
    /// A client registered during this sign-in, to keep for its issuer.
    pub registered_client: Option<RegisteredClient>,
    /// The authorization server the previous credentials came from, when the server moved to
    /// another one: its credentials for this server are to be forgotten.
    pub retired_issuer: Option<String>,
}

/// What the driver does next.
#[derive(Debug)]
pub enum Action {
    /// Send this request and hand the answer to [`SignIn::handle_response`].
    Send(HttpRequest),
    /// Open this authorization page (in the browser's auth window, inside the person's click)
    /// and hand the URL it ends at to [`SignIn::handle_redirect`].
    OpenAuthorizationPage(String),
    /// The end.
    Finished(Result<Box<SignedIn>, Error>),
}

enum State {
    ResourceMetadata { url: String, rest: VecDeque<String> },
    ServerMetadata { url: String, rest: VecDeque<String> },
    Registration { url: String },
    Authorization { state: String, pkce: Pkce },
    Token { url: String },
    Done,
}

/// The endpoints sign-in uses, each already through the URL policy.
struct Endpoints {
    authorization: String,
    token: String,
    registration: Option<String>,
    revocation: Option<String>,
}

pub struct SignIn {
    config: SignInConfig,
    server: Option<WebUrl>,
    rules: Option<UrlRules>,
    challenge: BearerChallenge,
    state: State,
    next: Option<Action>,
    random: Randomness,
    resource_metadata: Option<ProtectedResourceMetadata>,
    /// The issuer as the protected resource names it (or the 2025-03-26 origin), then as the
    /// validated metadata names itself: what `iss` is compared with.
    issuer: String,
    /// No protected-resource metadata: the server's origin is the authorization server.
    legacy: bool,
    server_metadata: Option<AuthorizationServerMetadata>,
    endpoints: Option<Endpoints>,
    resource: String,
    client: Option<ClientAuth>,
    registered: Option<RegisteredClient>,
    requested_scopes: Vec<String>,
    /// The wall clock at the last answer.
    now_ms: u64,
}

impl SignIn {
    pub fn new(config: SignInConfig, random: Randomness) -> SignIn {
        let challenge =
            config.challenge.as_deref().and_then(BearerChallenge::from_header).unwrap_or_default();
        let server = web_url::parse(config.server_url.trim());
        let mut sign_in = SignIn {
            rules: server.as_ref().map(UrlRules::for_server),
            resource: server.as_ref().map(discovery::canonical_resource).unwrap_or_default(),
            server,
            config,
            challenge,
            state: State::Done,
            next: None,
            random,
            resource_metadata: None,
            issuer: String::new(),
            legacy: false,
            server_metadata: None,
            endpoints: None,
            client: None,
            registered: None,
            requested_scopes: Vec::new(),
            now_ms: 0,
        };
        let started = sign_in.start();
        sign_in.settle(started);
        sign_in
    }

    /// The next thing to do; `None` while waiting for an answer or after the outcome was taken.
    pub fn poll(&mut self) -> Option<Action> {
        self.next.take()
    }

    /// The answer to the request of the last [`Action::Send`]. `now_ms` is the wall clock.
    pub fn handle_response(&mut self, now_ms: u64, response: Response) {
        self.now_ms = now_ms;
        let outcome = match std::mem::replace(&mut self.state, State::Done) {
            State::ResourceMetadata { url, rest } => self.on_resource_metadata(url, rest, response),
            State::ServerMetadata { url, rest } => self.on_server_metadata(url, rest, response),
            State::Registration { url } => self.on_registration(now_ms, url, response),
            State::Token { url } => self.on_token(now_ms, url, response),
            other => {
                self.state = other;
                Err(Error::UnexpectedInput)
            }
        };
        self.settle(outcome);
    }

    /// The request of the last [`Action::Send`] could not be completed.
    pub fn handle_transport_error(&mut self, message: &str) {
        let (step, url) = match &self.state {
            State::ResourceMetadata { url, .. } => (Step::ResourceMetadata, url),
            State::ServerMetadata { url, .. } => (Step::ServerMetadata, url),
            State::Registration { url } => (Step::Registration, url),
            State::Token { url } => (Step::Token, url),
            _ => return self.settle(Err(Error::UnexpectedInput)),
        };
        let error = Error::Unreachable { step, url: redact_url(url), message: message.to_owned() };
        self.settle(Err(error));
    }

    /// The URL the authorization page ended at (the redirect URI with the answer in its query).
    pub fn handle_redirect(&mut self, url: &str) {
        let outcome = match std::mem::replace(&mut self.state, State::Done) {
            State::Authorization { state, pkce } => self.on_redirect(url, &state, &pkce),
            other => {
                self.state = other;
                Err(Error::UnexpectedInput)
            }
        };
        self.settle(outcome);
    }

    /// The person closed the window, or the attempt is abandoned.
    pub fn cancel(&mut self) {
        if !matches!(self.state, State::Done) {
            self.state = State::Done;
            self.next = Some(Action::Finished(Err(Error::Cancelled)));
        }
    }

    /// Turns a step's result into the next action; an error ends the sign-in.
    fn settle(&mut self, outcome: Result<Action, Error>) {
        let action = outcome.unwrap_or_else(|error| {
            self.state = State::Done;
            Action::Finished(Err(error))
        });
        self.next = Some(action);
    }

    fn server(&self) -> Result<(&WebUrl, &UrlRules), Error> {
        match (&self.server, &self.rules) {
            (Some(server), Some(rules)) => Ok((server, rules)),
            _ => Err(Error::UrlInvalid { field: "MCP server URL".into() }),
        }
    }

    fn start(&mut self) -> Result<Action, Error> {
        let (server, _) = self.server()?;
        let mut urls: VecDeque<String> = discovery::resource_metadata_urls(server).into();
        if let Some(from_header) = self.challenge.resource_metadata.clone() {
            urls.retain(|u| *u != from_header);
            urls.push_front(from_header);
        }
        self.next_resource_metadata(urls)
    }

    fn next_resource_metadata(&mut self, mut urls: VecDeque<String>) -> Result<Action, Error> {
        let Some(url) = urls.pop_front() else { return self.start_legacy() };
        let (_, rules) = self.server()?;
        let checked = rules.check("protected resource metadata URL", &url)?;
        let request = exchange::get_json(checked.as_str());
        self.state = State::ResourceMetadata { url, rest: urls };
        Ok(Action::Send(request))
    }

    fn on_resource_metadata(
        &mut self,
        url: String,
        rest: VecDeque<String>,
        response: Response,
    ) -> Result<Action, Error> {
        let step = Step::ResourceMetadata;
        exchange::check(step, &url, &response)?;
        if !exchange::is_success(&response) {
            return match response.status {
                400..=499 => self.next_resource_metadata(rest),
                status => Err(Error::Status { step, url: redact_url(&url), status }),
            };
        }
        let metadata: ProtectedResourceMetadata = exchange::decode(step, &url, &response.body)?;
        let (server, rules) = self.server()?;
        if !discovery::resource_matches(server, &metadata.resource) {
            return Err(Error::ResourceMismatch {
                server: redact_url(&self.config.server_url),
                resource: redact_url(&metadata.resource),
            });
        }
        let listed = metadata.authorization_servers.clone().unwrap_or_default();
        let previous = self.config.previous.as_ref().map(|p| p.issuer.as_str());
        // The issuer signed in with before, while the server still lists it; else the first.
        let issuer = match previous.filter(|p| listed.iter().any(|l| l == p)) {
            Some(previous) => previous.to_owned(),
            None => listed.first().cloned().ok_or_else(|| Error::NoAuthorizationServer {
                server: redact_url(&self.config.server_url),
            })?,
        };
        let issuer_url = rules.check("authorization server", &issuer)?;
        self.resource = metadata.resource.clone();
        self.resource_metadata = Some(metadata);
        self.issuer = issuer;
        self.next_server_metadata(discovery::server_metadata_urls(&issuer_url).into())
    }

    /// MCP 2025-03-26: no protected-resource metadata, so the server's origin is the issuer.
    fn start_legacy(&mut self) -> Result<Action, Error> {
        let (server, _) = self.server()?;
        let issuer = discovery::origin(server);
        let urls = VecDeque::from([discovery::legacy_metadata_url(server)]);
        self.legacy = true;
        self.issuer = issuer;
        self.next_server_metadata(urls)
    }

    fn next_server_metadata(&mut self, mut urls: VecDeque<String>) -> Result<Action, Error> {
        let Some(url) = urls.pop_front() else {
            return if self.legacy {
                self.use_default_endpoints()
            } else {
                Err(Error::NoServerMetadata { issuer: redact_url(&self.issuer) })
            };
        };
        let (_, rules) = self.server()?;
        let checked = rules.check("authorization server metadata URL", &url)?;
        let request = exchange::get_json(checked.as_str());
        self.state = State::ServerMetadata { url, rest: urls };
        Ok(Action::Send(request))
    }

    fn on_server_metadata(
        &mut self,
        url: String,
        rest: VecDeque<String>,
        response: Response,
    ) -> Result<Action, Error> {
        let step = Step::ServerMetadata;
        exchange::check(step, &url, &response)?;
        if !exchange::is_success(&response) {
            return match response.status {
                400..=499 => self.next_server_metadata(rest),
                status => Err(Error::Status { step, url: redact_url(&url), status }),
            };
        }
        let metadata: AuthorizationServerMetadata = exchange::decode(step, &url, &response.body)?;
        // RFC 8414 §3.3: exactly the issuer the document was fetched for. A 2025-03-26 server
        // had no issuer to compare with, its authorization server being its origin by
        // definition: there the issuer must be on that origin.
        let expected = &self.issuer;
        let same = if self.legacy {
            web_url::parse(&metadata.issuer).is_some_and(|i| discovery::origin(&i) == *expected)
        } else {
            metadata.issuer == *expected
        };
        if !same {
            return Err(Error::IssuerMismatch {
                expected: redact_url(expected),
                found: redact_url(&metadata.issuer),
            });
        }
        self.issuer = metadata.issuer.clone();
        if !metadata.supports_s256() {
            return Err(Error::PkceUnsupported { issuer: redact_url(&self.issuer) });
        }
        let (_, rules) = self.server()?;
        let required = |field: &str, value: &Option<String>| {
            let value = value.as_deref().ok_or_else(|| Error::Malformed {
                step,
                url: redact_url(&url),
                detail: format!("no {field}"),
            })?;
            rules.check(field, value).map(String::from)
        };
        let optional = |field: &str, value: &Option<String>| {
            value.as_deref().map(|v| rules.check(field, v).map(String::from)).transpose()
        };
        self.endpoints = Some(Endpoints {
            authorization: required("authorization_endpoint", &metadata.authorization_endpoint)?,
            token: required("token_endpoint", &metadata.token_endpoint)?,
            registration: optional("registration_endpoint", &metadata.registration_endpoint)?,
            revocation: optional("revocation_endpoint", &metadata.revocation_endpoint)?,
        });
        self.server_metadata = Some(metadata);
        self.choose_client()
    }

    /// MCP 2025-03-26 without metadata: the fixed paths at the server's origin.
    fn use_default_endpoints(&mut self) -> Result<Action, Error> {
        let (server, rules) = self.server()?;
        let DefaultEndpoints { authorization, token, registration } =
            discovery::default_endpoints(server);
        self.endpoints = Some(Endpoints {
            authorization: rules.check("authorization endpoint", &authorization)?.into(),
            token: rules.check("token endpoint", &token)?.into(),
            registration: Some(rules.check("registration endpoint", &registration)?.into()),
            revocation: None,
        });
        self.choose_client()
    }

    fn choose_client(&mut self) -> Result<Action, Error> {
        let advertised = self
            .server_metadata
            .as_ref()
            .and_then(|m| m.token_endpoint_auth_methods_supported.clone());
        let options = &self.config.client;
        if let Some(entered) = &options.pre_registered {
            if let Some(bound) = entered.issuer.as_deref().filter(|b| *b != self.issuer) {
                return Err(Error::ClientIdForOtherServer {
                    issuer: redact_url(&self.issuer),
                    bound_to: redact_url(bound),
                });
            }
            let secret = entered.client_secret.clone().filter(|s| !s.is_empty());
            let method = TokenEndpointAuth::choose(secret.is_some(), None, advertised.as_deref());
            self.client = Some(ClientAuth {
                client_id: entered.client_id.clone(),
                client_secret: secret,
                method,
            });
            return self.authorize();
        }
        let documents_accepted =
            self.server_metadata.as_ref().is_some_and(|m| m.accepts_client_metadata_documents());
        if let (Some(document), true) = (&options.metadata_document_url, documents_accepted) {
            let valid = web_url::parse(document)
                .is_some_and(|u| u.scheme == "https" && u.pathname != "/" && u.fragment.is_none());
            if !valid {
                return Err(Error::InvalidClientMetadataUrl);
            }
            self.client = Some(ClientAuth {
                client_id: document.clone(),
                client_secret: None,
                method: TokenEndpointAuth::None,
            });
            return self.authorize();
        }
        let redirect_uri = &self.config.redirect_uri;
        let known = self
            .config
            .registered_clients
            .iter()
            .find(|c| c.usable(&self.issuer, redirect_uri, self.now_ms))
            .cloned();
        if let Some(known) = known {
            self.client = Some(client_of(&known.information, advertised.as_deref()));
            return self.authorize();
        }
        let Some(url) = self.endpoints.as_ref().and_then(|e| e.registration.clone()) else {
            return Err(Error::NeedsClientId { issuer: redact_url(&self.issuer) });
        };
        let request = ClientMetadata::public_client(&self.config.client_name, redirect_uri);
        let body = serde_json::to_string(&request).map_err(|e| Error::Malformed {
            step: Step::Registration,
            url: redact_url(&url),
            detail: e.to_string(),
        })?;
        let send = exchange::post_json(&url, body);
        self.state = State::Registration { url };
        Ok(Action::Send(send))
    }

    fn on_registration(
        &mut self,
        now_ms: u64,
        url: String,
        response: Response,
    ) -> Result<Action, Error> {
        let step = Step::Registration;
        exchange::check(step, &url, &response)?;
        if !exchange::is_success(&response) {
            return Err(refusal(step, &url, &response, |error, description| {
                Error::RegistrationRefused { error, description }
            }));
        }
        let information: ClientInformation = exchange::decode(step, &url, &response.body)?;
        let advertised = self
            .server_metadata
            .as_ref()
            .and_then(|m| m.token_endpoint_auth_methods_supported.clone());
        self.client = Some(client_of(&information, advertised.as_deref()));
        self.registered = Some(RegisteredClient {
            issuer: self.issuer.clone(),
            redirect_uri: self.config.redirect_uri.clone(),
            registered_at_ms: now_ms,
            information,
        });
        self.authorize()
    }

    fn authorize(&mut self) -> Result<Action, Error> {
        let previous = match &self.config.previous {
            Some(p) if p.issuer == self.issuer => p.requested_scopes.as_slice(),
            _ => &[],
        };
        self.requested_scopes = scopes::choose(
            &self.challenge.scopes,
            self.resource_metadata.as_ref().and_then(|m| m.scopes_supported.as_deref()),
            previous,
            self.server_metadata.as_ref().and_then(|m| m.scopes_supported.as_deref()),
        );
        let (Some(endpoints), Some(client)) = (&self.endpoints, &self.client) else {
            return Err(Error::UnexpectedInput);
        };
        let pkce = Pkce::from_random(&self.random.code_verifier);
        let state = pkce::state_from_random(&self.random.state);
        let scope = scopes::join(&self.requested_scopes);
        let mut query = vec![
            ("response_type", "code"),
            ("client_id", client.client_id.as_str()),
            ("redirect_uri", self.config.redirect_uri.as_str()),
            ("code_challenge", pkce.challenge.as_str()),
            ("code_challenge_method", "S256"),
            ("state", state.as_str()),
            ("resource", self.resource.as_str()),
        ];
        if let Some(scope) = &scope {
            query.push(("scope", scope));
        }
        // OpenID Connect Core §11: `offline_access` is honoured only with `prompt=consent`;
        // without it OpenID providers (oidc-provider) drop the scope and issue no refresh token.
        if self.requested_scopes.iter().any(|s| s == scopes::OFFLINE_ACCESS) {
            query.push(("prompt", "consent"));
        }
        let url = with_query(&endpoints.authorization, &exchange::form(&query));
        self.state = State::Authorization { state, pkce };
        Ok(Action::OpenAuthorizationPage(url))
    }

    fn on_redirect(&mut self, url: &str, state: &str, pkce: &Pkce) -> Result<Action, Error> {
        let (Some(landed), Some(expected)) =
            (web_url::parse(url), web_url::parse(&self.config.redirect_uri))
        else {
            return Err(Error::WrongRedirect);
        };
        let ours = discovery::origin(&landed) == discovery::origin(&expected)
            && landed.pathname == expected.pathname;
        if !ours {
            return Err(Error::WrongRedirect);
        }
        let query = landed.query.clone().unwrap_or_default();
        let param = |name: &str| {
            form_urlencoded::parse(query.as_bytes())
                .find(|(n, _)| n == name)
                .map(|(_, v)| v.into_owned())
        };
        if param("state").as_deref() != Some(state) {
            return Err(Error::StateMismatch);
        }
        // RFC 9207 as MCP 2026-07-28 tabulates it: a present `iss` must be the issuer, byte for
        // byte; an absent one is refused only when the server promised it.
        let promised = self.server_metadata.as_ref().is_some_and(|m| m.promises_iss());
        match param("iss") {
            Some(iss) if iss != self.issuer => {
                return Err(Error::IssMismatch {
                    expected: redact_url(&self.issuer),
                    found: redact_url(&iss),
                })
            }
            None if promised => {
                return Err(Error::IssMissing { expected: redact_url(&self.issuer) })
            }
            _ => {}
        }
        if let Some(error) = param("error") {
            return Err(Error::AuthorizationDenied {
                error,
                description: param("error_description"),
            });
        }
        let code = param("code").filter(|c| !c.is_empty()).ok_or(Error::NoCode)?;
        let (Some(endpoints), Some(client)) = (&self.endpoints, &self.client) else {
            return Err(Error::UnexpectedInput);
        };
        let url = endpoints.token.clone();
        let mut pairs = vec![
            ("grant_type", "authorization_code"),
            ("code", code.as_str()),
            ("redirect_uri", self.config.redirect_uri.as_str()),
            ("code_verifier", pkce.verifier.expose()),
            ("resource", self.resource.as_str()),
        ];
        let request = token_request(&url, &mut pairs, client);
        self.state = State::Token { url };
        Ok(Action::Send(request))
    }

    fn on_token(&mut self, now_ms: u64, url: String, response: Response) -> Result<Action, Error> {
        let (Some(endpoints), Some(client)) = (self.endpoints.take(), self.client.take()) else {
            return Err(Error::UnexpectedInput);
        };
        let issued = read_token_response(now_ms, &url, &response)?;
        let scopes = issued.scopes.unwrap_or_else(|| self.requested_scopes.clone());
        let credentials = Credentials {
            server_url: self.config.server_url.clone(),
            issuer: self.issuer.clone(),
            resource: self.resource.clone(),
            access_token: issued.access_token,
            refresh_token: issued.refresh_token,
            expires_at_ms: issued.expires_at_ms,
            issued_at_ms: Some(now_ms),
            scopes,
            requested_scopes: std::mem::take(&mut self.requested_scopes),
            token_endpoint: endpoints.token,
            revocation_endpoint: endpoints.revocation,
            client,
        };
        let retired_issuer =
            self.config.previous.as_ref().map(|p| p.issuer.clone()).filter(|p| *p != self.issuer);
        let signed_in =
            SignedIn { credentials, registered_client: self.registered.take(), retired_issuer };
        Ok(Action::Finished(Ok(Box::new(signed_in))))
    }
}

/// The client identity of a registration: its secret if it has one, the method it was
/// registered with, else one the server advertises.
fn client_of(information: &ClientInformation, advertised: Option<&[String]>) -> ClientAuth {
    let secret = information.client_secret.clone().filter(|s| !s.is_empty());
    let method = TokenEndpointAuth::choose(
        secret.is_some(),
        information.token_endpoint_auth_method.as_deref(),
        advertised,
    );
    ClientAuth { client_id: information.client_id.clone(), client_secret: secret, method }
}

/// A token endpoint request with the client's authentication in the body or the header.
pub(crate) fn token_request<'a>(
    url: &str,
    pairs: &mut Vec<(&'a str, &'a str)>,
    client: &'a ClientAuth,
) -> HttpRequest {
    let secret = client.client_secret.as_ref().map(Secret::expose).unwrap_or_default();
    match client.method {
        TokenEndpointAuth::ClientSecretBasic => {
            exchange::post_form(url, pairs, Some((&client.client_id, secret)))
        }
        TokenEndpointAuth::ClientSecretPost => {
            pairs.push(("client_id", &client.client_id));
            pairs.push(("client_secret", secret));
            exchange::post_form(url, pairs, None)
        }
        TokenEndpointAuth::None => {
            pairs.push(("client_id", &client.client_id));
            exchange::post_form(url, pairs, None)
        }
    }
}

/// A token response, read and checked.
pub(crate) struct Issued {
    pub access_token: Secret,
    pub refresh_token: Option<Secret>,
    pub expires_at_ms: Option<u64>,
    pub scopes: Option<Vec<String>>,
}

pub(crate) fn read_token_response(
    now_ms: u64,
    url: &str,
    response: &Response,
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
    if let Some(kind) = token.token_type.as_deref().filter(|t| !t.eq_ignore_ascii_case("bearer")) {
        return Err(Error::UnsupportedTokenType { token_type: kind.chars().take(40).collect() });
    }
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
    })
}

/// The error of an answer with an OAuth error body (RFC 6749 says 400 or 401; servers also
/// send one with a 5xx), else of its status.
pub(crate) fn refusal(
    step: Step,
    url: &str,
    response: &Response,
    make: impl FnOnce(String, Option<String>) -> Error,
) -> Error {
    let body = (response.status >= 400).then_some(&response.body);
    match body.and_then(|b| serde_json::from_slice::<ErrorResponse>(b).ok()) {
        Some(e) => make(clip(&e.error), e.error_description.as_deref().map(clip)),
        None => Error::Status { step, url: redact_url(url), status: response.status },
    }
}

/// Server-chosen text in a message, cut to a readable length.
fn clip(text: &str) -> String {
    text.chars().take(300).collect()
}

/// `endpoint` with `query` added to any query it has (RFC 6749 §3.1 keeps it).
fn with_query(endpoint: &str, query: &str) -> String {
    match endpoint.split_once('?') {
        Some((_, existing)) if !existing.is_empty() => format!("{endpoint}&{query}"),
        Some(_) => format!("{endpoint}{query}"),
        None => format!("{endpoint}?{query}"),
    }
}

#[cfg(test)]
mod tests {
    use super::with_query;

    #[test]
    fn the_authorization_endpoint_keeps_its_query() {
        assert_eq!(with_query("https://a/authorize", "x=1"), "https://a/authorize?x=1");
        assert_eq!(with_query("https://a/authorize?", "x=1"), "https://a/authorize?x=1");
        assert_eq!(with_query("https://a/authorize?t=2", "x=1"), "https://a/authorize?t=2&x=1");
    }
}
