//! The `Authorization` header of a server the person signed in to.
//!
//! Shared between the client that sends it and whoever keeps the sign-in alive (`core::oauth`
//! drives refreshes; the worker or a test stores the result here): it is read before every
//! request, so a refreshed token is used at once, without a new client or a new session.
//!
//! A token bound to a key (DPoP, RFC 9449) goes as `Authorization: DPoP …` with a fresh proof
//! of possession per request, made by a [`ProofOfPossession`] the sign-in hands over (the
//! client knows nothing of keys or OAuth).

use std::cell::RefCell;
use std::fmt;
use std::future::Future;
use std::pin::Pin;
use std::rc::Rc;

use super::transport::Method;
use crate::secret::Secret;

/// Proves, request by request, that the client holds the key an access token is bound to.
pub trait ProofOfPossession {
    /// The `DPoP` header of one request presenting `access_token`.
    fn proof<'a>(
        &'a self,
        method: Method,
        url: &'a str,
        access_token: &'a str,
    ) -> Pin<Box<dyn Future<Output = Result<String, String>> + 'a>>;
    /// Sees every answer (to keep a nonce it carries); `true` when the request is to be sent
    /// once more with a fresh proof (the server asked for a new nonce).
    fn answered(&self, url: &str, status: u16, headers: &[(String, String)]) -> bool;
}

#[derive(Default)]
struct State {
    /// `Bearer …` or `DPoP …`.
    value: Option<Secret>,
    proof: Option<Rc<dyn ProofOfPossession>>,
}

#[derive(Clone, Default)]
pub struct Authorization(Rc<RefCell<State>>);

impl Authorization {
    /// Sets a bearer header value (`Bearer …`), or removes the header with `None`.
    pub fn set(&self, value: Option<Secret>) {
        *self.0.borrow_mut() = State { value, proof: None };
    }

    /// Sets a token bound to `proof`'s key: sent as `DPoP …`, each request with a proof.
    pub fn set_bound(&self, access_token: &Secret, proof: Rc<dyn ProofOfPossession>) {
        let value = Secret::new(format!("DPoP {}", access_token.expose()));
        *self.0.borrow_mut() = State { value: Some(value), proof: Some(proof) };
    }

    /// The header value to send, if any.
    pub fn header_value(&self) -> Option<String> {
        self.0.borrow().value.as_ref().map(|v| v.expose().to_owned())
    }

    /// What proves possession of the key of a bound token, when the token is one.
    pub fn proof(&self) -> Option<Rc<dyn ProofOfPossession>> {
        self.0.borrow().proof.clone()
    }
}

impl fmt::Debug for Authorization {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let state = self.0.borrow();
        f.write_str(match (&state.value, &state.proof) {
            (Some(_), Some(_)) => "Authorization(bound)",
            (Some(_), None) => "Authorization(set)",
            (None, _) => "Authorization(none)",
        })
    }
}
