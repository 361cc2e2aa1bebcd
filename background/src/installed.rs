//! `chrome.runtime.onInstalled`: the context menu's items on install and update, then what
//! `core::first_run` decides: the welcome page on a first install, the changelog notice kept
//! for the side panel after an update, nothing on a reload of the same version.

use gemipanel_browser::chrome;
use gemipanel_core::first_run::{self, Installed};
use gemipanel_core::whats_new;
use wasm_bindgen::prelude::*;

/// `reason` and `previousVersion` of the event's details.
#[wasm_bindgen]
pub async fn on_installed(reason: String, previous_version: Option<String>) {
    crate::menu::register().await;
    let current = chrome::extension_version();
    let done = match first_run::on_installed(&reason, previous_version.as_deref(), &current) {
        Installed::OpenWelcome => chrome::open_tab(first_run::WELCOME_PAGE).await,
        Installed::Notice(notice) => {
            chrome::local_set(whats_new::STORAGE_KEY, &notice.to_stored().into()).await
        }
        Installed::Nothing => Ok(()),
    };
    if let Err(err) = done {
        web_sys::console::warn_1(&format!("GemiPanel: after {reason}: {err}").into());
    }
}
