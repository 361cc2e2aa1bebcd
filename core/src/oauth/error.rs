//! Why signing in to a server failed: a kind and its arguments, worded through `_locales`
//! ([`Error::text`]; English for logs and tests).
//!
//! No variant carries a token, a client secret, an authorization code or a URL's query: URLs in
//! here are reduced to scheme, host and path ([`crate::mcp::redact_url`]).

use serde::{Deserialize, Serialize};
use std::fmt;

use crate::text::Text;
use crate::url_policy::RefusalKind;

/// A document or exchange of the flow, named in messages.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Step {
    /// RFC 9728 protected-resource metadata.
    ResourceMetadata,
    /// RFC 8414 or OpenID Connect discovery.
    ServerMetadata,
    /// RFC 7591 dynamic client registration.
    Registration,
    /// The authorization code or refresh token exchange.
    Token,
    /// RFC 7009 revocation.
    Revocation,
    /// The person's enterprise identity provider: its metadata, sign-in and ID token.
    IdentityProvider,
    /// RFC 8693 token exchange at the identity provider (an ID token for an ID-JAG).
    TokenExchange,
}

impl Step {
    pub fn text(self) -> Text {
        Text::new(match self {
            Step::ResourceMetadata => "oauthStepResourceMetadata",
            Step::ServerMetadata => "oauthStepServerMetadata",
            Step::Registration => "oauthStepRegistration",
            Step::Token => "oauthStepToken",
            Step::Revocation => "oauthStepRevocation",
            Step::IdentityProvider => "oauthStepIdentityProvider",
            Step::TokenExchange => "oauthStepTokenExchange",
        })
    }
}

impl fmt::Display for Step {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.text().fmt(f)
    }
}

/// Why a sign-in, refresh or sign-out failed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Error {
    /// The host could not complete an exchange (no connection, timeout, body cut short).
    Unreachable { step: Step, url: String, message: String },
    /// An answer with a status the step cannot use.
    Status { step: Step, url: String, status: u16 },
    /// A 3xx answer: redirects are never followed during sign-in.
    Redirected { step: Step, url: String, status: u16 },
    /// An answer larger than the cap.
    TooLarge { step: Step, url: String, limit: usize },
    /// An answer that is not the JSON document the step expects.
    Malformed { step: Step, url: String, detail: String },
    /// A URL the server gave us that the URL policy refuses.
    UrlRefused { field: String, host: String, reason: RefusalKind },
    /// A URL the server gave us that does not even parse as a URL.
    UrlInvalid { field: String },
    /// The protected-resource metadata describes another resource than the server's URL.
    ResourceMismatch { server: String, resource: String },
    /// The protected-resource metadata lists no authorization server.
    NoAuthorizationServer { server: String },
    /// No metadata for the authorization server at any of the well-known locations.
    NoServerMetadata { issuer: String },
    /// The metadata document names another issuer than the one it was fetched for.
    IssuerMismatch { expected: String, found: String },
    /// The authorization server does not offer PKCE with S256.
    PkceUnsupported { issuer: String },
    /// No client id: none entered, no client metadata document usable, no registration offered.
    NeedsClientId { issuer: String },
    /// The client id entered for this server belongs to another authorization server.
    ClientIdForOtherServer { issuer: String, bound_to: String },
    /// The configured client metadata document URL is not an https URL with a path.
    InvalidClientMetadataUrl,
    /// The authorization server refused to register us.
    RegistrationRefused { error: String, description: Option<String> },
    /// The browser came back to a URL that is not our redirect URI.
    WrongRedirect,
    /// The authorization response did not carry the `state` we sent.
    StateMismatch,
    /// RFC 9207: the response names another issuer than the one we asked.
    IssMismatch { expected: String, found: String },
    /// RFC 9207: the server promised `iss` in its responses and left it out.
    IssMissing { expected: String },
    /// The person or the server declined (an `error` in the authorization response).
    AuthorizationDenied { error: String, description: Option<String> },
    /// The authorization response had neither a code nor an error.
    NoCode,
    /// The token endpoint refused the code or the refresh token.
    TokenRefused { status: u16, error: String, description: Option<String> },
    /// A token type other than Bearer.
    UnsupportedTokenType { token_type: String },
    /// Signed in, and the server still answers 401.
    StillUnauthorized { server: String },
    /// The server keeps asking for more scopes after the step-ups we allow.
    InsufficientScope { server: String, scopes: Vec<String> },
    /// A 403 that is not about scopes: signing in again would not help.
    Forbidden { server: String },
    /// There is no refresh token, or no way to use one.
    NoRefreshToken,
    /// The person closed the sign-in window, or the attempt was abandoned.
    Cancelled,
    /// The flow was fed an input it was not waiting for (a driver bug, not a server's).
    UnexpectedInput,
    /// The host could not draw random bytes for PKCE and `state`.
    NoRandomness,
    /// A client secret or key the person entered is bound to no authorization server, so it
    /// is not sent to the one the MCP server names now (`issuer`).
    SecretWithoutIssuer { issuer: String },
    /// Client credentials need a client id with its secret or private key.
    ClientCredentialsNeedSecret,
    /// Enterprise sign-in without an identity provider configured.
    NoIdentityProvider,
    /// The identity provider answered the sign-in without an ID token.
    IdTokenMissing,
    /// The ID token is not one of this sign-in (`reason`: issuer, audience, nonce, expired,
    /// unreadable).
    IdTokenRejected { reason: String },
    /// The identity provider refused to exchange the ID token for the server (its policy, or
    /// an ID token it no longer accepts).
    TokenExchangeRefused { status: u16, error: String, description: Option<String> },
    /// The authorization server refused a request because of where it came from (a browser
    /// extension's `Origin`), whatever was in it.
    OriginRefused { step: Step, url: String },
    /// Signing in would need the person (a window) and none was asked for.
    NeedsInteraction,
}

impl Error {
    /// Whether signing in again (a click) may fix it, as opposed to a server to fix or a
    /// setting to change.
    pub fn needs_sign_in(&self) -> bool {
        matches!(
            self,
            Error::TokenRefused { .. }
                | Error::NoRefreshToken
                | Error::StillUnauthorized { .. }
                | Error::NeedsInteraction
        )
    }
}

impl Error {
    /// Why, in words for a person (see `core::text`).
    pub fn text(&self) -> Text {
        let with_description = |text: Text, description: &Option<String>| match description {
            Some(d) if !d.is_empty() => Text::new("oauthWithDescription").with(text).arg(d),
            _ => text,
        };
        match self {
            Error::Unreachable { step, url, message } => {
                Text::new("oauthUnreachable").with(step.text()).arg(url).arg(message)
            }
            Error::Status { step, url, status } => {
                Text::new("oauthStatus").with(step.text()).arg(url).arg(status)
            }
            Error::Redirected { step, url, status } => {
                Text::new("oauthRedirected").with(step.text()).arg(url).arg(status)
            }
            Error::TooLarge { step, url, limit } => {
                Text::new("oauthTooLarge").with(step.text()).arg(url).arg(limit)
            }
            Error::Malformed { step, url, detail } => {
                Text::new("oauthMalformed").with(step.text()).arg(url).arg(detail)
            }
            Error::UrlRefused { field, host, reason } => {
                let key = match reason {
                    RefusalKind::NotPublic => "oauthUrlNotPublic",
                    RefusalKind::Metadata => "oauthUrlMetadata",
                    RefusalKind::Unroutable => "oauthUrlUnroutable",
                    RefusalKind::Insecure => "oauthUrlInsecure",
                    RefusalKind::Fragment => "oauthUrlFragment",
                    RefusalKind::UserInfo => "oauthUrlUserInfo",
                    RefusalKind::Scheme => "oauthUrlScheme",
                    RefusalKind::NoHost => "oauthUrlNoHost",
                    RefusalKind::Unparsable => "oauthUrlInvalid",
                    RefusalKind::NeedsLocalNetwork => "oauthUrlPrivate",
                };
                Text::new(key).arg(field).arg(host)
            }
            Error::UrlInvalid { field } => Text::new("oauthUrlInvalid").arg(field),
            Error::ResourceMismatch { server, resource } => {
                Text::new("oauthResourceMismatch").arg(server).arg(resource)
            }
            Error::NoAuthorizationServer { server } => {
                Text::new("oauthNoAuthorizationServer").arg(server)
            }
            Error::NoServerMetadata { issuer } => Text::new("oauthNoServerMetadata").arg(issuer),
            Error::IssuerMismatch { expected, found } => {
                Text::new("oauthIssuerMismatch").arg(expected).arg(found)
            }
            Error::PkceUnsupported { issuer } => Text::new("oauthPkceUnsupported").arg(issuer),
            Error::NeedsClientId { issuer } => Text::new("oauthNeedsClientId").arg(issuer),
            Error::ClientIdForOtherServer { issuer, bound_to } => {
                Text::new("oauthClientIdForOtherServer").arg(bound_to).arg(issuer)
            }
            Error::InvalidClientMetadataUrl => Text::new("oauthInvalidClientMetadataUrl"),
            Error::RegistrationRefused { error, description } => {
                with_description(Text::new("oauthRegistrationRefused").arg(error), description)
            }
            Error::WrongRedirect => Text::new("oauthWrongRedirect"),
            Error::StateMismatch => Text::new("oauthStateMismatch"),
            Error::IssMismatch { expected, found } => {
                Text::new("oauthIssMismatch").arg(found).arg(expected)
            }
            Error::IssMissing { expected } => Text::new("oauthIssMissing").arg(expected),
            Error::AuthorizationDenied { error, description } => {
                with_description(Text::new("oauthDenied").arg(error), description)
            }
            Error::NoCode => Text::new("oauthNoCode"),
            Error::TokenRefused { status, error, description } => {
                with_description(Text::new("oauthTokenRefused").arg(status).arg(error), description)
            }
            Error::UnsupportedTokenType { token_type } => {
                Text::new("oauthTokenType").arg(token_type)
            }
            Error::StillUnauthorized { server } => Text::new("oauthStillUnauthorized").arg(server),
            Error::InsufficientScope { server, scopes } => {
                Text::new("oauthInsufficientScope").arg(server).arg(scopes.join(" "))
            }
            Error::Forbidden { server } => Text::new("oauthForbidden").arg(server),
            Error::NoRefreshToken => Text::new("oauthNoRefreshToken"),
            Error::Cancelled => Text::new("oauthCancelled"),
            Error::UnexpectedInput => Text::new("oauthUnexpectedInput"),
            Error::NoRandomness => Text::new("oauthNoRandomness"),
            Error::SecretWithoutIssuer { issuer } => {
                Text::new("oauthSecretWithoutIssuer").arg(issuer)
            }
            Error::ClientCredentialsNeedSecret => Text::new("oauthClientCredentialsNeedSecret"),
            Error::NoIdentityProvider => Text::new("oauthNoIdentityProvider"),
            Error::IdTokenMissing => Text::new("oauthIdTokenMissing"),
            Error::IdTokenRejected { reason } => Text::new("oauthIdTokenRejected").arg(reason),
            Error::TokenExchangeRefused { status, error, description } => with_description(
                Text::new("oauthTokenExchangeRefused").arg(status).arg(error),
                description,
            ),
            Error::OriginRefused { step, url } => {
                Text::new("oauthOriginRefused").with(step.text()).arg(url)
            }
            Error::NeedsInteraction => Text::new("oauthNeedsInteraction"),
        }
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.text().fmt(f)
    }
}

impl std::error::Error for Error {}
