//! Why signing in to a server failed: a kind and its arguments, worded in English here for logs
//! and tests, and by the pages through `_locales` (the `kind` tag names the message).
//!
//! No variant carries a token, a client secret, an authorization code or a URL's query: URLs in
//! here are reduced to scheme, host and path ([`crate::mcp::redact_url`]).

use serde::{Deserialize, Serialize};
use std::fmt;

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
}

impl fmt::Display for Step {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Step::ResourceMetadata => "protected resource metadata",
            Step::ServerMetadata => "authorization server metadata",
            Step::Registration => "client registration",
            Step::Token => "token request",
            Step::Revocation => "token revocation",
        })
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
}

impl Error {
    /// Whether signing in again (a click) may fix it, as opposed to a server to fix or a
    /// setting to change.
    pub fn needs_sign_in(&self) -> bool {
        matches!(
            self,
            Error::TokenRefused { .. } | Error::NoRefreshToken | Error::StillUnauthorized { .. }
        )
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Unreachable { step, url, message } => {
                write!(f, "{step}: could not reach {url}: {message}")
            }
            Error::Status { step, url, status } => {
                write!(f, "{step}: {url} answered HTTP {status}")
            }
            Error::Redirected { step, url, status } => write!(
                f,
                "{step}: {url} answered with a redirect (HTTP {status}), which sign-in never follows"
            ),
            Error::TooLarge { step, url, limit } => {
                write!(f, "{step}: the answer of {url} is larger than {limit} bytes")
            }
            Error::Malformed { step, url, detail } => {
                write!(f, "{step}: {url} answered with an unreadable document: {detail}")
            }
            Error::UrlRefused { field, host, reason } => {
                write!(f, "the server's {field} ")?;
                match reason {
                    RefusalKind::NotPublic => write!(
                        f,
                        "points to {host}, which is not a public address; addresses a server \
                         gives us must be public"
                    ),
                    RefusalKind::Metadata => write!(
                        f,
                        "points to {host}, a cloud metadata service, which is never contacted"
                    ),
                    RefusalKind::Unroutable => {
                        write!(f, "points to {host}, which is not an address a server can have")
                    }
                    RefusalKind::Insecure => write!(f, "is not https"),
                    RefusalKind::Fragment => write!(f, "has a #fragment"),
                    RefusalKind::UserInfo => write!(f, "contains a user name or password"),
                    RefusalKind::Scheme => write!(f, "is not an https URL"),
                    RefusalKind::NoHost => write!(f, "has no host"),
                    RefusalKind::Unparsable => write!(f, "is not a valid URL"),
                    RefusalKind::NeedsLocalNetwork => {
                        write!(f, "points to {host}, a private network address")
                    }
                }
            }
            Error::UrlInvalid { field } => write!(f, "the server's {field} is not a valid URL"),
            Error::ResourceMismatch { server, resource } => write!(
                f,
                "the server {server} published authorization metadata for another resource \
                 ({resource}); refusing to sign in"
            ),
            Error::NoAuthorizationServer { server } => write!(
                f,
                "the server {server} needs sign-in but names no authorization server"
            ),
            Error::NoServerMetadata { issuer } => write!(
                f,
                "the authorization server {issuer} publishes no metadata at any well-known location"
            ),
            Error::IssuerMismatch { expected, found } => write!(
                f,
                "the metadata of the authorization server {expected} names another issuer \
                 ({found}); refusing to use it"
            ),
            Error::PkceUnsupported { issuer } => write!(
                f,
                "the authorization server {issuer} does not offer PKCE with S256, which sign-in \
                 requires"
            ),
            Error::NeedsClientId { issuer } => write!(
                f,
                "the authorization server {issuer} does not register clients automatically: \
                 enter a client id for this server under Advanced"
            ),
            Error::ClientIdForOtherServer { issuer, bound_to } => write!(
                f,
                "the client id entered for this server was issued by {bound_to}, but the server \
                 now uses {issuer}: enter a client id from the new authorization server"
            ),
            Error::InvalidClientMetadataUrl => write!(
                f,
                "the client metadata URL must be an https URL with a path"
            ),
            Error::RegistrationRefused { error, description } => {
                write!(f, "the authorization server refused to register this client: {error}")?;
                describe(f, description)
            }
            Error::WrongRedirect => {
                f.write_str("the sign-in window returned to an unexpected address")
            }
            Error::StateMismatch => f.write_str(
                "the sign-in answer does not belong to this attempt (state mismatch); try again",
            ),
            Error::IssMismatch { expected, found } => write!(
                f,
                "the sign-in answer comes from {found} instead of {expected}; refusing it"
            ),
            Error::IssMissing { expected } => write!(
                f,
                "the sign-in answer does not say which server sent it, though {expected} \
                 promised to; refusing it"
            ),
            Error::AuthorizationDenied { error, description } => {
                write!(f, "sign-in was not granted: {error}")?;
                describe(f, description)
            }
            Error::NoCode => f.write_str("the sign-in answer carries no authorization code"),
            Error::TokenRefused { status, error, description } => {
                write!(f, "the token endpoint refused (HTTP {status}): {error}")?;
                describe(f, description)
            }
            Error::UnsupportedTokenType { token_type } => {
                write!(f, "the token endpoint issued a {token_type} token; only Bearer is supported")
            }
            Error::StillUnauthorized { server } => {
                write!(f, "the server {server} refused the new sign-in (HTTP 401)")
            }
            Error::InsufficientScope { server, scopes } => write!(
                f,
                "the server {server} still asks for more permissions ({}) after signing in again",
                scopes.join(" ")
            ),
            Error::Forbidden { server } => {
                write!(f, "the server {server} refused access (HTTP 403)")
            }
            Error::NoRefreshToken => {
                f.write_str("the sign-in has expired and cannot be renewed: sign in again")
            }
            Error::Cancelled => f.write_str("sign-in was cancelled"),
            Error::UnexpectedInput => f.write_str("sign-in received an answer it did not ask for"),
        }
    }
}

fn describe(f: &mut fmt::Formatter<'_>, description: &Option<String>) -> fmt::Result {
    match description {
        Some(text) if !text.is_empty() => write!(f, " ({text})"),
        _ => Ok(()),
    }
}

impl std::error::Error for Error {}
