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
//! Two other ways to the tokens replace steps 3 to 5 when the person chose them for the server:
//! client credentials (the person's own client signs in as itself, no window), and enterprise
//! sign-in (`enterprise`: the person's identity provider, then a token exchange there, then a
//! JWT grant here). Every token request proves possession of the driver's DPoP key when the
//! authorization server binds tokens to keys (RFC 9449): [`Action::SendSigned`].
//!
//! Nothing is stored by the machine: the outcome carries everything worth keeping, and a failed
//! sign-in leaves nothing behind.

use std::collections::VecDeque;

use super::challenge::BearerChallenge;
use super::discovery::{self, DefaultEndpoints};
use super::enterprise::{self, same_issuer, IdpSession};
use super::error::{Error, Step};
use super::exchange::{self, Response, SignedRequest};
use super::learned::UrlRules;
use super::metadata::{AuthorizationServerMetadata, ProtectedResourceMetadata};
use super::pkce::{self, Pkce};
use super::registration::{ClientInformation, ClientMetadata};
use super::requests::{self, read_token_response, refusal, token_request};
use super::scopes;
use super::store::{ClientAuth, Credentials, Grant, RegisteredClient, TokenEndpointAuth};
use crate::mcp::{redact_url, HttpRequest};
use crate::settings::{IdentityProvider, OAuthClient, Secret, SignInMethod};
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
    /// The RFC 7638 thumbprint of the driver's DPoP key, when it has one: tokens are then bound
    /// to it wherever the authorization server offers that.
    pub dpop: Option<String>,
    /// A sign-in at the identity provider kept from before (enterprise sign-in): used while it
    /// lasts instead of asking the person again.
    pub idp_session: Option<IdpSession>,
    pub purpose: Purpose,
}

/// What the machine runs for.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Purpose {
    /// To the tokens.
    #[default]
    SignIn,
    /// Only as far as the authorization server the MCP server names: [`Action::IssuerFound`]
    /// (what a client the person enters is then bound to).
    FindIssuer,
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
            .field("dpop", &self.dpop)
            .field("idp_session", &self.idp_session)
            .field("purpose", &self.purpose)
            .finish_non_exhaustive()
    }
}

/// The client identity the person configured for this server, and how they sign in.
#[derive(Debug, Clone, Default)]
pub struct ClientOptions {
    pub pre_registered: Option<PreRegistered>,
    /// An https URL serving a Client ID Metadata Document for our redirect URI.
    pub metadata_document_url: Option<String>,
    pub method: SignInMethod,
    /// The identity provider of [`SignInMethod::Enterprise`].
    pub identity_provider: Option<IdentityProvider>,
}

impl ClientOptions {
    /// What the person configured for a server. An id they entered belongs to the issuer they
    /// entered with it; one entered before issuers were asked for stays bound to the issuer
    /// it was first used with (the one of `stored`, when those credentials used that id).
    pub fn for_server(configured: &OAuthClient, stored: Option<&Credentials>) -> Self {
        let pre_registered = configured.client_id.clone().map(|client_id| {
            let used_with =
                stored.filter(|c| c.client.client_id == client_id).map(|c| c.issuer.clone());
            PreRegistered {
                issuer: configured.issuer.clone().or(used_with),
                client_id,
                client_secret: configured.client_secret.clone(),
                private_key: configured.private_key.clone(),
            }
        });
        ClientOptions {
            pre_registered,
            metadata_document_url: configured.metadata_url.clone(),
            method: configured.method,
            identity_provider: configured.identity_provider.clone(),
        }
    }
}

/// A client id (and secret or key) the person entered, from a registration of their own.
#[derive(Debug, Clone)]
pub struct PreRegistered {
    pub client_id: String,
    pub client_secret: Option<Secret>,
    /// PEM (PKCS #8, P-256): the client proves itself with a signed JWT (`private_key_jwt`).
    pub private_key: Option<Secret>,
    /// The issuer the client belongs to: its secret or key goes to no other.
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
    /// The identity provider's sign-in (enterprise sign-in), to keep for the next servers.
    pub idp_session: Option<IdpSession>,
}

/// What the driver does next.
#[derive(Debug)]
pub enum Action {
    /// Send this request and hand the answer to [`SignIn::handle_response`].
    Send(HttpRequest),
    /// Sign this request as it says (DPoP proof, client assertion), send it, and hand the
    /// answer to [`SignIn::handle_response`].
    SendSigned(Box<SignedRequest>),
    /// Open this authorization page (in the browser's auth window, inside the person's click)
    /// and hand the URL it ends at to [`SignIn::handle_redirect`].
    OpenAuthorizationPage(String),
    /// The end.
    Finished(Result<Box<SignedIn>, Error>),
    /// The end of a [`Purpose::FindIssuer`] run: the authorization server the MCP server names.
    IssuerFound(String),
}

enum State {
    ResourceMetadata {
        url: String,
        rest: VecDeque<String>,
    },
    ServerMetadata {
        url: String,
        rest: VecDeque<String>,
    },
    Registration {
        url: String,
    },
    Authorization {
        state: String,
        pkce: Pkce,
    },
    /// Any request to the token endpoint: a code, client credentials, an identity assertion.
    Token {
        url: String,
    },
    IdpMetadata {
        url: String,
        rest: VecDeque<String>,
    },
    IdpAuthorization {
        state: String,
        pkce: Pkce,
    },
    IdpToken {
        url: String,
    },
    TokenExchange {
        url: String,
    },
    Done,
}

/// The identity provider of an enterprise sign-in, as far as it is known.
struct Idp {
    provider: IdentityProvider,
    rules: UrlRules,
    metadata: Option<AuthorizationServerMetadata>,
    token_endpoint: Option<String>,
    /// The kept sign-in this attempt started from, dropped if the provider refuses it.
    kept: Option<IdpSession>,
    /// The ID token this sign-in exchanges.
    session: Option<IdpSession>,
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
    /// The DPoP key's thumbprint, once the authorization server is known to bind tokens.
    dpop: Option<String>,
    /// The grant the tokens come from.
    grant: Grant,
    idp: Option<Idp>,
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
            dpop: None,
            grant: Grant::AuthorizationCode,
            idp: None,
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
            State::IdpMetadata { url, rest } => self.on_idp_metadata(url, rest, response),
            State::IdpToken { url } => self.on_idp_token(now_ms, url, response),
            State::TokenExchange { url } => self.on_token_exchange(url, response),
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
            State::IdpMetadata { url, .. } | State::IdpToken { url } => {
                (Step::IdentityProvider, url)
            }
            State::TokenExchange { url } => (Step::TokenExchange, url),
            _ => return self.settle(Err(Error::UnexpectedInput)),
        };
        let error = Error::Unreachable { step, url: redact_url(url), message: message.to_owned() };
        self.settle(Err(error));
    }

    /// The URL the authorization page ended at (the redirect URI with the answer in its query).
    pub fn handle_redirect(&mut self, url: &str) {
        let outcome = match std::mem::replace(&mut self.state, State::Done) {
            State::Authorization { state, pkce } => self.on_redirect(url, &state, &pkce),
            State::IdpAuthorization { state, pkce } => self.on_idp_redirect(url, &state, &pkce),
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
        // PKCE protects the authorization page, which only the browser sign-in opens.
        let browser = self.config.client.method == SignInMethod::Browser;
        if browser && self.config.purpose == Purpose::SignIn && !metadata.supports_s256() {
            return Err(Error::PkceUnsupported { issuer: redact_url(&self.issuer) });
        }
        let required = self
            .resource_metadata
            .as_ref()
            .is_some_and(|m| m.dpop_bound_access_tokens_required == Some(true));
        if metadata.offers_dpop_es256() || required {
            self.dpop = self.config.dpop.clone();
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
        if self.config.purpose == Purpose::FindIssuer {
            self.state = State::Done;
            return Ok(Action::IssuerFound(self.issuer.clone()));
        }
        match self.config.client.method {
            SignInMethod::Browser => {}
            SignInMethod::ClientCredentials => return self.client_credentials(),
            SignInMethod::Enterprise => return self.start_enterprise(),
        }
        if let Some(entered) = self.entered_client()? {
            self.client = Some(entered);
            return self.authorize();
        }
        let options = &self.config.client;
        let advertised = self.advertised_auth_methods();
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
                private_key: None,
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

    fn advertised_auth_methods(&self) -> Option<Vec<String>> {
        self.server_metadata.as_ref().and_then(|m| m.token_endpoint_auth_methods_supported.clone())
    }

    /// The client the person entered for this server, if any. Its secret or key goes only to
    /// the issuer it is bound to: another issuer, or none to compare with, ends the sign-in
    /// before anything is sent.
    fn entered_client(&self) -> Result<Option<ClientAuth>, Error> {
        let Some(entered) = &self.config.client.pre_registered else { return Ok(None) };
        let secret = entered.client_secret.clone().filter(|s| !s.is_empty());
        let private_key = entered.private_key.clone().filter(|k| !k.is_empty());
        match entered.issuer.as_deref() {
            Some(bound) if !same_issuer(bound, &self.issuer) => {
                return Err(Error::ClientIdForOtherServer {
                    issuer: redact_url(&self.issuer),
                    bound_to: redact_url(bound),
                })
            }
            None if secret.is_some() || private_key.is_some() => {
                return Err(Error::SecretWithoutIssuer { issuer: redact_url(&self.issuer) })
            }
            _ => {}
        }
        let method = match &private_key {
            Some(_) => TokenEndpointAuth::PrivateKeyJwt,
            None => TokenEndpointAuth::choose(
                secret.is_some(),
                None,
                self.advertised_auth_methods().as_deref(),
            ),
        };
        Ok(Some(ClientAuth {
            client_id: entered.client_id.clone(),
            client_secret: secret,
            method,
            private_key,
        }))
    }

    /// The scopes this sign-in asks for; `offline_access` only where a refresh token can come
    /// back (the authorization code grant).
    fn choose_scopes(&mut self) {
        let previous = match &self.config.previous {
            Some(p) if p.issuer == self.issuer => p.requested_scopes.as_slice(),
            _ => &[],
        };
        let server_supported = match self.grant {
            Grant::AuthorizationCode => {
                self.server_metadata.as_ref().and_then(|m| m.scopes_supported.as_deref())
            }
            Grant::ClientCredentials | Grant::JwtBearer => None,
        };
        self.requested_scopes = scopes::choose(
            &self.challenge.scopes,
            self.resource_metadata.as_ref().and_then(|m| m.scopes_supported.as_deref()),
            previous,
            server_supported,
        );
    }

    /// A request to the MCP server's token endpoint, with a DPoP proof when tokens are bound.
    fn send_to_token_endpoint(&mut self, pairs: &[(&str, &str)]) -> Result<Action, Error> {
        let (Some(endpoints), Some(client)) = (&self.endpoints, &self.client) else {
            return Err(Error::UnexpectedInput);
        };
        let url = endpoints.token.clone();
        let mut signed = token_request(&url, pairs, client, &self.issuer);
        signed.proof = self.dpop.is_some();
        self.state = State::Token { url };
        Ok(Action::SendSigned(Box::new(signed)))
    }

    /// Client credentials (RFC 6749 §4.4; MCP extension `oauth-client-credentials`): the
    /// person's own client signs in as itself, without a window.
    fn client_credentials(&mut self) -> Result<Action, Error> {
        let client = self.entered_client()?.ok_or(Error::ClientCredentialsNeedSecret)?;
        if client.client_secret.is_none() && client.private_key.is_none() {
            return Err(Error::ClientCredentialsNeedSecret);
        }
        self.client = Some(client);
        self.grant = Grant::ClientCredentials;
        self.choose_scopes();
        let resource = self.resource.clone();
        let scope = scopes::join(&self.requested_scopes);
        let mut pairs = vec![("grant_type", requests::CLIENT_CREDENTIALS), ("resource", &resource)];
        if let Some(scope) = &scope {
            pairs.push(("scope", scope));
        }
        self.send_to_token_endpoint(&pairs)
    }

    /// Enterprise sign-in: the client entered for the MCP server's authorization server (the
    /// identity provider's assertion names it), then the identity provider's metadata.
    fn start_enterprise(&mut self) -> Result<Action, Error> {
        let client = self
            .entered_client()?
            .ok_or_else(|| Error::NeedsClientId { issuer: redact_url(&self.issuer) })?;
        let provider =
            self.config.client.identity_provider.clone().ok_or(Error::NoIdentityProvider)?;
        let issuer = web_url::parse(provider.issuer.trim())
            .ok_or(Error::UrlInvalid { field: "identity provider".into() })?;
        let kept = self
            .config
            .idp_session
            .clone()
            .filter(|s| s.usable(&provider.issuer, &provider.client_id, self.now_ms));
        self.client = Some(client);
        self.grant = Grant::JwtBearer;
        self.idp = Some(Idp {
            rules: UrlRules::for_server(&issuer),
            provider,
            metadata: None,
            token_endpoint: None,
            kept,
            session: None,
        });
        self.next_idp_metadata(discovery::server_metadata_urls(&issuer).into())
    }

    fn idp(&self) -> Result<&Idp, Error> {
        self.idp.as_ref().ok_or(Error::UnexpectedInput)
    }

    fn next_idp_metadata(&mut self, mut urls: VecDeque<String>) -> Result<Action, Error> {
        let idp = self.idp()?;
        let Some(url) = urls.pop_front() else {
            return Err(Error::NoServerMetadata { issuer: redact_url(&idp.provider.issuer) });
        };
        let checked = idp.rules.check("identity provider metadata URL", &url)?;
        let request = exchange::get_json(checked.as_str());
        self.state = State::IdpMetadata { url, rest: urls };
        Ok(Action::Send(request))
    }

    fn on_idp_metadata(
        &mut self,
        url: String,
        rest: VecDeque<String>,
        response: Response,
    ) -> Result<Action, Error> {
        let step = Step::IdentityProvider;
        exchange::check(step, &url, &response)?;
        if !exchange::is_success(&response) {
            return match response.status {
                400..=499 => self.next_idp_metadata(rest),
                status => Err(Error::Status { step, url: redact_url(&url), status }),
            };
        }
        let metadata: AuthorizationServerMetadata = exchange::decode(step, &url, &response.body)?;
        let idp = self.idp.as_mut().ok_or(Error::UnexpectedInput)?;
        if !same_issuer(&metadata.issuer, &idp.provider.issuer) {
            return Err(Error::IssuerMismatch {
                expected: redact_url(&idp.provider.issuer),
                found: redact_url(&metadata.issuer),
            });
        }
        let token = metadata.token_endpoint.as_deref().ok_or_else(|| Error::Malformed {
            step,
            url: redact_url(&url),
            detail: "no token_endpoint".into(),
        })?;
        idp.token_endpoint =
            Some(idp.rules.check("identity provider token endpoint", token)?.into());
        idp.metadata = Some(metadata);
        match idp.kept.clone() {
            Some(kept) => {
                idp.session = Some(kept);
                self.exchange_id_token()
            }
            None => self.authorize_at_idp(),
        }
    }

    /// The identity provider's sign-in page (OpenID Connect, code with PKCE and a nonce).
    fn authorize_at_idp(&mut self) -> Result<Action, Error> {
        let idp = self.idp()?;
        let metadata = idp.metadata.as_ref().ok_or(Error::UnexpectedInput)?;
        if !metadata.supports_s256() {
            return Err(Error::PkceUnsupported { issuer: redact_url(&idp.provider.issuer) });
        }
        let endpoint = metadata.authorization_endpoint.as_deref().ok_or(Error::Malformed {
            step: Step::IdentityProvider,
            url: redact_url(&idp.provider.issuer),
            detail: "no authorization_endpoint".into(),
        })?;
        let endpoint = idp.rules.check("identity provider authorization endpoint", endpoint)?;
        let pkce = Pkce::from_random(&self.random.code_verifier);
        let state = pkce::state_from_random(&self.random.state);
        let nonce = enterprise::nonce(&self.random.code_verifier);
        let query = [
            ("response_type", "code"),
            ("client_id", idp.provider.client_id.as_str()),
            ("redirect_uri", self.config.redirect_uri.as_str()),
            ("scope", "openid"),
            ("nonce", nonce.as_str()),
            ("code_challenge", pkce.challenge.as_str()),
            ("code_challenge_method", "S256"),
            ("state", state.as_str()),
        ];
        let url = with_query(endpoint.as_str(), &exchange::form(&query));
        self.state = State::IdpAuthorization { state, pkce };
        Ok(Action::OpenAuthorizationPage(url))
    }

    fn on_idp_redirect(&mut self, url: &str, state: &str, pkce: &Pkce) -> Result<Action, Error> {
        let idp = self.idp()?;
        let promised = idp.metadata.as_ref().is_some_and(|m| m.promises_iss());
        let issuer =
            idp.metadata.as_ref().map_or(idp.provider.issuer.clone(), |m| m.issuer.clone());
        let code = self.code_from(url, state, &issuer, promised)?;
        let idp = self.idp()?;
        let token_endpoint = idp.token_endpoint.clone().ok_or(Error::UnexpectedInput)?;
        let client = idp_client(idp);
        let pairs = vec![
            ("grant_type", "authorization_code"),
            ("code", code.as_str()),
            ("redirect_uri", self.config.redirect_uri.as_str()),
            ("code_verifier", pkce.verifier.expose()),
        ];
        let signed = token_request(&token_endpoint, &pairs, &client, &issuer);
        self.state = State::IdpToken { url: token_endpoint };
        Ok(Action::SendSigned(Box::new(signed)))
    }

    fn on_idp_token(
        &mut self,
        now_ms: u64,
        url: String,
        response: Response,
    ) -> Result<Action, Error> {
        let id_token = enterprise::read_id_token(&url, &response)?;
        let nonce = enterprise::nonce(&self.random.code_verifier);
        let idp = self.idp.as_mut().ok_or(Error::UnexpectedInput)?;
        let session = enterprise::check_id_token(
            &id_token,
            &idp.provider.issuer,
            &idp.provider.client_id,
            &nonce,
            now_ms,
        )?;
        idp.session = Some(session);
        self.exchange_id_token()
    }

    /// RFC 8693 at the identity provider: the ID token for an identity assertion (ID-JAG) for
    /// this server's authorization server and resource.
    fn exchange_id_token(&mut self) -> Result<Action, Error> {
        self.choose_scopes();
        let idp = self.idp()?;
        let session = idp.session.as_ref().ok_or(Error::UnexpectedInput)?;
        let url = idp.token_endpoint.clone().ok_or(Error::UnexpectedInput)?;
        let client = idp_client(idp);
        let scope = scopes::join(&self.requested_scopes);
        let mut pairs = vec![
            ("grant_type", requests::TOKEN_EXCHANGE),
            ("requested_token_type", requests::ID_JAG),
            ("audience", self.issuer.as_str()),
            ("resource", self.resource.as_str()),
            ("subject_token", session.id_token.expose()),
            ("subject_token_type", requests::ID_TOKEN),
        ];
        if let Some(scope) = &scope {
            pairs.push(("scope", scope));
        }
        let signed = token_request(&url, &pairs, &client, &idp.provider.issuer);
        self.state = State::TokenExchange { url };
        Ok(Action::SendSigned(Box::new(signed)))
    }

    fn on_token_exchange(&mut self, url: String, response: Response) -> Result<Action, Error> {
        let assertion = match enterprise::read_exchange(&url, &response) {
            Ok(assertion) => assertion,
            // A kept ID token the provider no longer takes: the person signs in there again.
            Err(Error::TokenExchangeRefused { error, .. }) if error == "invalid_grant" => {
                let idp = self.idp.as_mut().ok_or(Error::UnexpectedInput)?;
                if idp.kept.take().is_none() {
                    return Err(Error::TokenExchangeRefused {
                        status: response.status,
                        error,
                        description: None,
                    });
                }
                idp.session = None;
                return self.authorize_at_idp();
            }
            Err(other) => return Err(other),
        };
        let resource = self.resource.clone();
        let scope = scopes::join(&self.requested_scopes);
        let mut pairs = vec![
            ("grant_type", requests::JWT_BEARER),
            ("assertion", assertion.expose()),
            ("resource", resource.as_str()),
        ];
        if let Some(scope) = &scope {
            pairs.push(("scope", scope));
        }
        self.send_to_token_endpoint(&pairs)
    }

    fn authorize(&mut self) -> Result<Action, Error> {
        self.choose_scopes();
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
        // RFC 9449 §10: the code is bound to the key too, so only its holder can redeem it.
        if let Some(jkt) = &self.dpop {
            query.push(("dpop_jkt", jkt));
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
        let promised = self.server_metadata.as_ref().is_some_and(|m| m.promises_iss());
        let code = self.code_from(url, state, &self.issuer, promised)?;
        let resource = self.resource.clone();
        let redirect_uri = self.config.redirect_uri.clone();
        let pairs = vec![
            ("grant_type", "authorization_code"),
            ("code", code.as_str()),
            ("redirect_uri", redirect_uri.as_str()),
            ("code_verifier", pkce.verifier.expose()),
            ("resource", resource.as_str()),
        ];
        self.send_to_token_endpoint(&pairs)
    }

    /// The code of an authorization response, after checking it answers this attempt
    /// (`state`) from the server asked (RFC 9207 `iss` as MCP 2026-07-28 tabulates it: a
    /// present one must be `issuer` byte for byte; an absent one is refused only when the
    /// server promised it).
    fn code_from(
        &self,
        url: &str,
        state: &str,
        issuer: &str,
        promised: bool,
    ) -> Result<String, Error> {
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
        match param("iss") {
            Some(iss) if iss != issuer => {
                return Err(Error::IssMismatch {
                    expected: redact_url(issuer),
                    found: redact_url(&iss),
                })
            }
            None if promised => return Err(Error::IssMissing { expected: redact_url(issuer) }),
            _ => {}
        }
        if let Some(error) = param("error") {
            return Err(Error::AuthorizationDenied {
                error,
                description: param("error_description"),
            });
        }
        param("code").filter(|c| !c.is_empty()).ok_or(Error::NoCode)
    }

    fn on_token(&mut self, now_ms: u64, url: String, response: Response) -> Result<Action, Error> {
        let (Some(endpoints), Some(client)) = (self.endpoints.take(), self.client.take()) else {
            return Err(Error::UnexpectedInput);
        };
        let issued = read_token_response(now_ms, &url, &response, self.dpop.is_some())?;
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
            dpop_jkt: self.dpop.clone().filter(|_| issued.bound),
            grant: self.grant,
        };
        let retired_issuer =
            self.config.previous.as_ref().map(|p| p.issuer.clone()).filter(|p| *p != self.issuer);
        let signed_in = SignedIn {
            credentials,
            registered_client: self.registered.take(),
            retired_issuer,
            idp_session: self.idp.take().and_then(|idp| idp.session),
        };
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
    ClientAuth {
        client_id: information.client_id.clone(),
        client_secret: secret,
        method,
        private_key: None,
    }
}

/// GemiPanel's client at the identity provider: public, or with the secret the person entered.
fn idp_client(idp: &Idp) -> ClientAuth {
    let secret = idp.provider.client_secret.clone().filter(|s| !s.is_empty());
    let advertised =
        idp.metadata.as_ref().and_then(|m| m.token_endpoint_auth_methods_supported.clone());
    let method = TokenEndpointAuth::choose(secret.is_some(), None, advertised.as_deref());
    ClientAuth {
        client_id: idp.provider.client_id.clone(),
        client_secret: secret,
        method,
        private_key: None,
    }
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
