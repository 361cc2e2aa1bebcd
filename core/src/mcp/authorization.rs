//! The `Authorization` header of a server the person signed in to.
//!
//! Shared between the client that sends it and whoever keeps the sign-in alive (`core::oauth`
//! drives refreshes; the worker or a test stores the result here): it is read before every
//! request, so a refreshed token is used at once, without a new client or a new session.

use std::cell::RefCell;
use std::fmt;
use std::rc::Rc;

use crate::settings::Secret;

#[derive(Clone, Default)]
pub struct Authorization(Rc<RefCell<Option<Secret>>>);

impl Authorization {
    /// Sets the header value (`Bearer …`), or removes it with `None`.
    pub fn set(&self, value: Option<Secret>) {
        *self.0.borrow_mut() = value;
    }

    /// The header value to send, if any.
    pub fn header_value(&self) -> Option<String> {
        self.0.borrow().as_ref().map(|v| v.expose().to_owned())
    }
}

impl fmt::Debug for Authorization {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let set = self.0.borrow().is_some();
        f.write_str(if set { "Authorization(set)" } else { "Authorization(none)" })
    }
}
