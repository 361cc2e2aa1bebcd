//! What a click asks Chrome for before it goes on, and what to tell the person when they say
//! no: which access was not given, what did not happen, and which button to press again.
//!
//! Sites (a remote server's origin) and `nativeMessaging` (local servers, optional since it
//! adds an install warning) are asked in one prompt, inside the click.

use gemipanel_browser::chrome::{self, message, NATIVE_MESSAGING};
use gemipanel_browser::BrowserError;
use gemipanel_core::settings::ServerDraft;

/// The button that asked: the message says what did not happen and to press it again.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Asked {
    Test,
    Save,
    Import,
    /// A server row's "Allow access" or "Allow local servers".
    Allow,
    SignIn,
}

/// Access a click needs: sites as `chrome.permissions` patterns, and whether local servers
/// are involved.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Needs {
    pub origins: Vec<String>,
    pub local: bool,
}

impl Needs {
    pub fn site(origin: Option<String>) -> Needs {
        Needs { origins: origin.into_iter().collect(), local: false }
    }

    pub fn local() -> Needs {
        Needs { origins: Vec::new(), local: true }
    }

    /// What a server needs asked for before it can be reached: a remote server's site when
    /// the manifest does not grant it, or `nativeMessaging` for a local one.
    pub fn of(draft: &ServerDraft) -> Needs {
        match draft.local {
            Some(_) => Needs::local(),
            None => Needs::site(crate::form::host_permission(&draft.url)),
        }
    }

    /// Asks, now (call it straight from the click); `None` when nothing is needed.
    pub fn ask(&self) -> Option<impl std::future::Future<Output = Result<bool, BrowserError>>> {
        if self.origins.is_empty() && !self.local {
            return None;
        }
        let permissions: &[&str] = if self.local { &[NATIVE_MESSAGING] } else { &[] };
        Some(chrome::request_permissions(permissions, &self.origins))
    }

    /// `Ok` when granted; else what to tell the person.
    pub fn outcome(&self, asked: Asked, answer: Result<bool, BrowserError>) -> Result<(), String> {
        match answer {
            Ok(true) => Ok(()),
            Ok(false) => Err(self.refused(asked)),
            Err(err) => Err(message("popupPermissionFailed", &[err.message()])),
        }
    }

    /// The sentence for a refused prompt.
    pub fn refused(&self, asked: Asked) -> String {
        let sites = self
            .origins
            .iter()
            .map(|o| o.trim_end_matches("/*").to_owned())
            .collect::<Vec<_>>()
            .join(", ");
        message(refused_key(asked, !self.origins.is_empty(), self.local), &[&sites])
    }
}

/// The message for a refusal: what was not allowed, what did not happen, what to press.
pub fn refused_key(asked: Asked, sites: bool, local: bool) -> &'static str {
    match (asked, sites, local) {
        (Asked::Import, true, true) => "popupDeniedBothImport",
        (Asked::Test, _, true) => "popupDeniedLocalTest",
        (Asked::Save, _, true) => "popupDeniedLocalSave",
        (Asked::Import, _, true) => "popupDeniedLocalImport",
        (Asked::Allow | Asked::SignIn, _, true) => "popupDeniedLocalAllow",
        (Asked::Test, _, false) => "popupDeniedSiteTest",
        (Asked::Save, _, false) => "popupDeniedSiteSave",
        (Asked::Import, _, false) => "popupDeniedSiteImport",
        (Asked::Allow, _, false) => "popupDeniedSiteAllow",
        (Asked::SignIn, _, false) => "popupDeniedSiteSignIn",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_refusal_names_the_button_that_asked() {
        assert_eq!(refused_key(Asked::Test, true, false), "popupDeniedSiteTest");
        assert_eq!(refused_key(Asked::Save, true, false), "popupDeniedSiteSave");
        assert_eq!(refused_key(Asked::Test, false, true), "popupDeniedLocalTest");
        assert_eq!(refused_key(Asked::Import, true, true), "popupDeniedBothImport");
        assert_eq!(refused_key(Asked::Allow, false, true), "popupDeniedLocalAllow");
        assert_eq!(refused_key(Asked::SignIn, true, false), "popupDeniedSiteSignIn");
    }
}
