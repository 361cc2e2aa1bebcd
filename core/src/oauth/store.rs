//! What sign-in leaves behind for the worker to keep: the credentials of one server at one
//! authorization server, and the client registered once per authorization server.
//!
//! Both are plain serde documents for `chrome.storage`. Secrets are [`Secret`]s, which never
//! show in `Debug`; the worker keeps these documents out of every message to a page and out of
//! every export.

use serde::{Deserialize, Serialize};
use std::fmt;

use super::registration::ClientInformation;
use crate::mcp::redact_url;
use crate::settings::{Secret, ServerId};

/// How the client proves itself at the token endpoint (RFC 6749 §2.3, RFC 8414 §2).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TokenEndpointAuth {
    /// A public client: `client_id` in the body, nothing else.
    None,
    /// `client_id` and `client_secret` in the body.
    ClientSecretPost,
    /// HTTP Basic with the form-encoded id and secret.
    ClientSecretBasic,
    /// A JWT signed with the client's private key (RFC 7523 §2.2).
    PrivateKeyJwt,
}

impl TokenEndpointAuth {
    pub fn from_name(name: &str) -> Option<TokenEndpointAuth> {
        match name {
            "none" => Some(TokenEndpointAuth::None),
            "client_secret_post" => Some(TokenEndpointAuth::ClientSecretPost),
            "client_secret_basic" => Some(TokenEndpointAuth::ClientSecretBasic),
            "private_key_jwt" => Some(TokenEndpointAuth::PrivateKeyJwt),
            _ => None,
        }
    }

    /// The method for a client with or without a secret: the one the registration named when
    /// it is one we have, else the first the server advertises in our order of preference
    /// (RFC 8414: `client_secret_basic` when it advertises nothing).
    pub fn choose(
        has_secret: bool,
        registered: Option<&str>,
        advertised: Option<&[String]>,
    ) -> TokenEndpointAuth {
        if !has_secret {
            return TokenEndpointAuth::None;
        }
        let registered = registered.and_then(TokenEndpointAuth::from_name);
        // A registration naming a key when there is only a secret is not one this can follow.
        if let Some(method) = registered.filter(|m| *m != TokenEndpointAuth::PrivateKeyJwt) {
            return method;
        }
        let Some(advertised) = advertised else { return TokenEndpointAuth::ClientSecretBasic };
        let offers = |name: &str| advertised.iter().any(|m| m == name);
        if offers("client_secret_basic") {
            TokenEndpointAuth::ClientSecretBasic
        } else if offers("client_secret_post") {
            TokenEndpointAuth::ClientSecretPost
        } else if offers("none") {
            TokenEndpointAuth::None
        } else {
            TokenEndpointAuth::ClientSecretBasic
        }
    }
}

/// The client identity used with one authorization server.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ClientAuth {
    pub client_id: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub client_secret: Option<Secret>,
    pub method: TokenEndpointAuth,
    /// The private key (PEM) of [`TokenEndpointAuth::PrivateKeyJwt`]. Never stored with the
    /// credentials: it stays in the settings, where the authorizer takes it from.
    #[serde(skip)]
    pub private_key: Option<Secret>,
}

/// A client registered with an authorization server (RFC 7591), kept per issuer and reused by
/// every server behind it. Never used with another issuer.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RegisteredClient {
    pub issuer: String,
    pub redirect_uri: String,
    pub registered_at_ms: u64,
    pub information: ClientInformation,
}

impl RegisteredClient {
    /// Whether it can still be used at `now_ms` for `redirect_uri`.
    pub fn usable(&self, issuer: &str, redirect_uri: &str, now_ms: u64) -> bool {
        let expires = self.information.client_secret_expires_at.unwrap_or(0);
        let secret_alive = expires == 0 || expires.saturating_mul(1000) > now_ms;
        self.issuer == issuer && self.redirect_uri == redirect_uri && secret_alive
    }
}

/// The tokens of one server from one authorization server. `Debug` shows no token and no
/// query of the server's URL (it may carry a key).
#[derive(Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Credentials {
    /// The MCP server's URL as configured.
    pub server_url: String,
    /// The authorization server, exactly as its validated metadata names itself.
    pub issuer: String,
    /// The RFC 8707 resource the tokens are for.
    pub resource: String,
    pub access_token: Secret,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub refresh_token: Option<Secret>,
    /// When the access token expires, if the server said.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub expires_at_ms: Option<u64>,
    /// When the access token was received (absent in credentials kept by older versions).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub issued_at_ms: Option<u64>,
    /// What was granted (the token response's `scope`, else what was asked for).
    #[serde(default)]
    pub scopes: Vec<String>,
    /// What was asked for; a step-up asks for these and the new ones.
    #[serde(default)]
    pub requested_scopes: Vec<String>,
    pub token_endpoint: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub revocation_endpoint: Option<String>,
    pub client: ClientAuth,
    /// The RFC 7638 thumbprint of the DPoP key the access token is bound to (RFC 9449): it
    /// goes out as `DPoP …` with a proof made with that key, and is useless without it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dpop_jkt: Option<String>,
    /// How the tokens were obtained; every grant but the authorization code can be repeated
    /// without the person (client credentials always, an identity assertion while the
    /// identity provider's ID token lasts).
    #[serde(default, skip_serializing_if = "Grant::is_authorization_code")]
    pub grant: Grant,
}

/// The grant that gave a server its tokens.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Grant {
    /// The person signed in in the browser's window (RFC 6749 §4.1 with PKCE).
    #[default]
    AuthorizationCode,
    /// The client signed in as itself (RFC 6749 §4.4).
    ClientCredentials,
    /// An identity assertion from the person's identity provider (RFC 7523 §2.1, ID-JAG).
    JwtBearer,
}

impl Grant {
    pub fn is_authorization_code(&self) -> bool {
        *self == Grant::AuthorizationCode
    }
}

/// How long before expiry a token is refreshed, so a request never leaves with a token about to
/// die on the way.
pub const REFRESH_AHEAD_MS: u64 = 5 * 60 * 1000;

impl fmt::Debug for Credentials {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Credentials")
            .field("server_url", &redact_url(&self.server_url))
            .field("issuer", &self.issuer)
            .field("resource", &self.resource)
            .field("refreshable", &self.can_refresh())
            .field("expires_at_ms", &self.expires_at_ms)
            .field("scopes", &self.scopes)
            .field("client", &self.client)
            .field("dpop_jkt", &self.dpop_jkt)
            .field("grant", &self.grant)
            .finish_non_exhaustive()
    }
}

impl Credentials {
    /// What the credentials of every server are stored under, followed by its id.
    pub const STORAGE_PREFIX: &'static str = "oauth_credentials:";

    /// The `chrome.storage.local` key of server `id`'s credentials.
    pub fn storage_key(id: &ServerId) -> String {
        format!("{}{id}", Self::STORAGE_PREFIX)
    }

    /// The `Authorization` header value of a bearer token (a bound one needs its key: see
    /// `authorizer`).
    pub fn authorization(&self) -> String {
        format!("Bearer {}", self.access_token.expose())
    }

    /// Whether the access token is bound to a DPoP key.
    pub fn is_bound(&self) -> bool {
        self.dpop_jkt.is_some()
    }

    /// Whether the access token should be refreshed before the next request: within
    /// [`REFRESH_AHEAD_MS`] of its expiry, or in the second half of a shorter life (a token
    /// living five minutes is not refreshed before every request).
    pub fn refresh_due(&self, now_ms: u64) -> bool {
        let Some(expires) = self.expires_at_ms else { return false };
        let ahead = match self.issued_at_ms {
            Some(issued) => REFRESH_AHEAD_MS.min(expires.saturating_sub(issued) / 2),
            None => REFRESH_AHEAD_MS,
        };
        now_ms.saturating_add(ahead) >= expires
    }

    /// Whether the access token has expired (refresh failed or impossible: sign in again).
    pub fn expired(&self, now_ms: u64) -> bool {
        self.expires_at_ms.is_some_and(|at| now_ms >= at)
    }

    pub fn can_refresh(&self) -> bool {
        self.refresh_token.as_ref().is_some_and(|t| !t.is_empty())
    }
}
