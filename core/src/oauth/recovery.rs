//! What to do when a server refuses a request's token (401) or its scopes (403), so that one
//! request never loops: at most one refresh, one new sign-in and [`MAX_STEP_UPS`] step-ups.

use super::challenge::BearerChallenge;
use super::error::Error;
use super::store::Credentials;
use crate::mcp::redact_url;

/// How many times one request may ask for more scopes before it gives up (MCP: "no more than a
/// few times"; the conformance suite allows three authorization attempts in all).
pub const MAX_STEP_UPS: u8 = 2;

/// The next move for a refused request.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Reaction {
    /// Refresh the access token silently, then retry.
    Refresh,
    /// Sign in (again), with the refusal's `WWW-Authenticate` as the challenge, then retry.
    SignIn,
    /// Sign in again asking for the challenged scopes too, then retry.
    StepUp,
    /// Stop: signing in again would not help.
    GiveUp(Error),
}

/// The recovery state of one request (one operation), from its first refusal to its end.
#[derive(Debug, Default)]
pub struct Recovery {
    refreshed: bool,
    signed_in: bool,
    step_ups: u8,
}

impl Recovery {
    /// The reaction to an answer with `status`; `None` when the status is not about
    /// authorization. `credentials` are those the request was sent with.
    pub fn react(
        &mut self,
        server_url: &str,
        status: u16,
        www_authenticate: Option<&str>,
        credentials: Option<&Credentials>,
    ) -> Option<Reaction> {
        let server = || redact_url(server_url);
        let reaction = match status {
            401 => {
                if credentials.is_some_and(Credentials::can_refresh) && !self.refreshed {
                    self.refreshed = true;
                    Reaction::Refresh
                } else if !self.signed_in {
                    self.signed_in = true;
                    Reaction::SignIn
                } else {
                    Reaction::GiveUp(Error::StillUnauthorized { server: server() })
                }
            }
            403 => {
                let challenge = www_authenticate.and_then(BearerChallenge::from_header);
                match challenge {
                    Some(c) if c.is_insufficient_scope() && self.step_ups < MAX_STEP_UPS => {
                        self.step_ups += 1;
                        Reaction::StepUp
                    }
                    Some(c) if c.is_insufficient_scope() => {
                        Reaction::GiveUp(Error::InsufficientScope {
                            server: server(),
                            scopes: c.scopes,
                        })
                    }
                    _ => Reaction::GiveUp(Error::Forbidden { server: server() }),
                }
            }
            _ => return None,
        };
        Some(reaction)
    }

    /// A silent refresh was refused: the next move is a sign-in, if this request has not had
    /// one yet.
    pub fn refresh_failed(&mut self, server_url: &str) -> Reaction {
        if self.signed_in {
            Reaction::GiveUp(Error::StillUnauthorized { server: redact_url(server_url) })
        } else {
            self.signed_in = true;
            Reaction::SignIn
        }
    }
}
