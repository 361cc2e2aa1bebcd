//! Signing in to MCP servers with OAuth, as MCP's authorization specification (2025-11-25 and
//! 2026-07-28, with the 2025-03-26 fallbacks) lays it out.
//!
//! Pure: it builds HTTP requests and reads the answers; the worker (`chrome.identity` for the
//! authorization page) and the conformance driver (a headless fetch) move the bytes.
//!
//! * [`sign_in`]: the sans-IO state machine of one sign-in, from the 401's `WWW-Authenticate`
//!   to stored [`Credentials`].
//! * [`renewal`]: refresh (5 minutes before expiry, or once on a 401) and revocation.
//! * [`recovery`]: what one refused request does next (refresh, sign in, step up, give up).
//! * [`drive`]: the loops that run sign-in and renewals against a host ([`drive::OAuthHost`]).
//! * [`challenge`], [`discovery`], [`scopes`], [`pkce`]: the rules each step follows.
//! * [`metadata`], [`registration`], [`token`], [`store`]: one serde type per document.
//!
//! Every URL a server hands us passes the learned-URL policy (`learned`); no redirect is
//! followed; no answer larger than [`MAX_DOCUMENT_BYTES`] is read. Errors ([`Error`]) carry
//! a kind and arguments and never a token, secret or code.

pub mod authorizer;
pub mod challenge;
pub mod discovery;
pub mod dpop;
pub mod drive;
pub mod enterprise;
mod error;
mod exchange;
pub mod jose;
mod learned;
pub mod metadata;
pub mod origin_rule;
pub mod pkce;
pub mod recovery;
pub mod registration;
pub mod renewal;
mod requests;
pub mod scopes;
pub mod sign_in;
pub mod store;
pub mod token;

pub use error::{Error, Step};
pub use exchange::{ClientAssertion, Response, SignedRequest, MAX_DOCUMENT_BYTES};
pub use recovery::{Reaction, Recovery};
pub use sign_in::{
    Action, ClientOptions, PreRegistered, Purpose, Randomness, SignIn, SignInConfig, SignedIn,
};
pub use store::{ClientAuth, Credentials, Grant, RegisteredClient, TokenEndpointAuth};
