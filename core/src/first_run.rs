//! The first run: the welcome page's steps, which of them the popup still lists, and what
//! `chrome.runtime.onInstalled` asks for (the welcome page on install, the changelog notice
//! after an update, nothing on a reload of the same version).
//!
//! A step is done by what the settings and the browser say (a key saved, a server added, a
//! shortcut set), never by a flag a page sets: a key added in the popup counts as the welcome
//! page's step. What is stored (`first_run` in `chrome.storage.local`, written by the welcome
//! page and the popup) is only the person's choices: the steps skipped and the dismissal of the
//! popup's list.

use serde::{Deserialize, Serialize};

use crate::settings::Settings;
use crate::text::Text;
use crate::whats_new::{self, Notice};

/// The `chrome.storage.local` key of [`Progress`].
pub const STORAGE_KEY: &str = "first_run";
/// The extension page opened on install.
pub const WELCOME_PAGE: &str = "welcome.html";
/// Where a Gemini API key is made.
pub const API_KEY_PAGE: &str = "https://aistudio.google.com/apikey";
/// Where Chrome lets a person set an extension's shortcuts: a page only `chrome.tabs.create`
/// opens (a link to a `chrome://` page does nothing).
pub const SHORTCUTS_PAGE: &str = "chrome://extensions/shortcuts";

/// The welcome page's steps, in its order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Step {
    /// A Gemini API key saved.
    ApiKey,
    /// At least one MCP server, added or imported.
    Servers,
    /// A keyboard shortcut that opens the side panel.
    Shortcut,
}

impl Step {
    pub const ALL: [Step; 3] = [Step::ApiKey, Step::Servers, Step::Shortcut];

    /// The popup's line for the step while it is left.
    pub fn todo(self) -> Text {
        Text::new(match self {
            Step::ApiKey => "firstRunTodoApiKey",
            Step::Servers => "firstRunTodoServers",
            Step::Shortcut => "firstRunTodoShortcut",
        })
    }

    /// The label of the button beside that line.
    pub fn action(self) -> Text {
        Text::new(match self {
            Step::ApiKey => "firstRunActionApiKey",
            Step::Servers => "firstRunActionServers",
            Step::Shortcut => "firstRunActionShortcut",
        })
    }

    fn done(self, facts: &Facts) -> bool {
        match self {
            Step::ApiKey => facts.api_key,
            Step::Servers => facts.servers,
            Step::Shortcut => facts.shortcut,
        }
    }
}

/// What the steps are judged by, as the page reads it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Facts {
    pub api_key: bool,
    pub servers: bool,
    pub shortcut: bool,
}

impl Facts {
    /// From the settings and the shortcut `chrome.commands.getAll` gives the open-panel command.
    pub fn of(settings: &Settings, shortcut: Option<&str>) -> Facts {
        Facts {
            api_key: settings.gemini.api_key_locked
                || settings.gemini.api_key.as_ref().is_some_and(|k| !k.expose().trim().is_empty()),
            servers: !settings.servers.is_empty(),
            shortcut: shortcut.is_some_and(|s| !s.trim().is_empty()),
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StepState {
    Done,
    Skipped,
    Open,
}

/// The person's choices about the steps, as stored.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct Progress {
    /// Skipped on the welcome page: folded there, still listed by the popup.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub skipped: Vec<Step>,
    /// The popup's list was dismissed: it lists nothing any more.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub dismissed: bool,
}

impl Progress {
    /// The stored document as JSON text; absent or unreadable (another version's, damaged) is
    /// a fresh start, which only shows the steps again.
    pub fn from_stored(text: Option<&str>) -> Progress {
        text.and_then(|t| serde_json::from_str(t).ok()).unwrap_or_default()
    }

    pub fn to_stored(&self) -> String {
        serde_json::to_string(self).unwrap_or_default()
    }

    pub fn state(&self, step: Step, facts: &Facts) -> StepState {
        if step.done(facts) {
            StepState::Done
        } else if self.skipped.contains(&step) {
            StepState::Skipped
        } else {
            StepState::Open
        }
    }

    /// The step the welcome page opens: the first neither done nor skipped.
    pub fn current(&self, facts: &Facts) -> Option<Step> {
        Step::ALL.into_iter().find(|s| self.state(*s, facts) == StepState::Open)
    }

    /// What the popup lists: every step not done, skipped ones too (skipping on the welcome
    /// page means later, not never), until the list is dismissed.
    pub fn left(&self, facts: &Facts) -> Vec<Step> {
        if self.dismissed {
            return Vec::new();
        }
        Step::ALL.into_iter().filter(|s| !s.done(facts)).collect()
    }

    pub fn skip(&mut self, step: Step) {
        if !self.skipped.contains(&step) {
            self.skipped.push(step);
        }
    }

    /// Opens a skipped step again on the welcome page.
    pub fn reopen(&mut self, step: Step) {
        self.skipped.retain(|s| *s != step);
    }
}

/// What an `onInstalled` event asks the worker to do.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Installed {
    OpenWelcome,
    /// Keep this notice for the side panel (`whats_new::STORAGE_KEY`).
    Notice(Notice),
    Nothing,
}

/// `reason` and `previousVersion` of Chrome's `onInstalled` details
/// (<https://developer.chrome.com/docs/extensions/reference/api/runtime#event-onInstalled>),
/// `current` the manifest's version. Only a first install opens the welcome page; an update
/// keeps the changelog line of the newest version it brought, if the table has one; a reload
/// of an unpacked extension (an update from the same version), a Chrome update or a shared
/// module's do nothing.
pub fn on_installed(reason: &str, previous: Option<&str>, current: &str) -> Installed {
    match (reason, previous) {
        ("install", _) => Installed::OpenWelcome,
        ("update", Some(previous)) => {
            whats_new::after_update(previous, current).map_or(Installed::Nothing, Installed::Notice)
        }
        _ => Installed::Nothing,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::settings::Secret;

    const NONE: Facts = Facts { api_key: false, servers: false, shortcut: false };

    #[test]
    fn a_fresh_install_opens_on_the_key_and_lists_every_step() {
        let progress = Progress::default();
        assert_eq!(progress.current(&NONE), Some(Step::ApiKey));
        assert_eq!(progress.left(&NONE), Step::ALL.to_vec());
    }

    #[test]
    fn done_steps_leave_the_list_whoever_did_them() {
        let facts = Facts { api_key: true, servers: false, shortcut: true };
        let progress = Progress::default();
        assert_eq!(progress.left(&facts), vec![Step::Servers]);
        assert_eq!(progress.current(&facts), Some(Step::Servers));
        assert_eq!(progress.state(Step::ApiKey, &facts), StepState::Done);
        let all = Facts { api_key: true, servers: true, shortcut: true };
        assert!(progress.left(&all).is_empty());
        assert_eq!(progress.current(&all), None);
    }

    #[test]
    fn a_skipped_step_folds_on_the_welcome_page_but_stays_in_the_popup() {
        let mut progress = Progress::default();
        progress.skip(Step::ApiKey);
        progress.skip(Step::ApiKey);
        assert_eq!(progress.skipped, vec![Step::ApiKey]);
        assert_eq!(progress.state(Step::ApiKey, &NONE), StepState::Skipped);
        assert_eq!(progress.current(&NONE), Some(Step::Servers));
        assert_eq!(progress.left(&NONE), Step::ALL.to_vec());
        progress.reopen(Step::ApiKey);
        assert_eq!(progress.current(&NONE), Some(Step::ApiKey));
    }

    #[test]
    fn a_done_step_is_done_even_if_it_was_skipped() {
        let mut progress = Progress::default();
        progress.skip(Step::ApiKey);
        let facts = Facts { api_key: true, ..NONE };
        assert_eq!(progress.state(Step::ApiKey, &facts), StepState::Done);
    }

    #[test]
    fn dismissing_empties_the_popups_list_not_the_welcome_page() {
        let progress = Progress { dismissed: true, ..Progress::default() };
        assert!(progress.left(&NONE).is_empty());
        assert_eq!(progress.current(&NONE), Some(Step::ApiKey));
    }

    #[test]
    fn the_stored_form_round_trips_and_bad_text_is_a_fresh_start() {
        let mut progress = Progress { dismissed: true, ..Progress::default() };
        progress.skip(Step::Shortcut);
        let text = progress.to_stored();
        assert_eq!(text, r#"{"skipped":["shortcut"],"dismissed":true}"#);
        assert_eq!(Progress::from_stored(Some(&text)), progress);
        assert_eq!(Progress::from_stored(Some("{}")), Progress::default());
        for bad in ["", "null", "[1]", r#"{"skipped":["teleport"]}"#, r#"{"dismissed":"yes"}"#] {
            assert_eq!(Progress::from_stored(Some(bad)), Progress::default(), "{bad}");
        }
        assert_eq!(Progress::from_stored(None), Progress::default());
    }

    #[test]
    fn facts_come_from_the_settings_and_the_shortcut() {
        let mut settings = Settings::default();
        assert_eq!(Facts::of(&settings, None), NONE);
        assert_eq!(Facts::of(&settings, Some("")), NONE);
        settings.gemini.api_key = Some(Secret::new("   ".to_owned()));
        assert!(!Facts::of(&settings, None).api_key, "a blank key is no key");
        settings.gemini.api_key = Some(Secret::new("AIza-key".to_owned()));
        let facts = Facts::of(&settings, Some("Ctrl+Shift+Y"));
        assert_eq!(facts, Facts { api_key: true, servers: false, shortcut: true });
    }

    #[test]
    fn a_key_sealed_under_the_passphrase_is_a_key_given() {
        let mut settings = Settings::default();
        let sealed = crate::vault::Envelope { iv: vec![1; 12], ciphertext: vec![2; 40] };
        settings.gemini.api_key = Some(Secret::new(sealed.to_text()));
        let pages = settings.for_pages();
        assert_eq!(pages.gemini.api_key, None, "the pages get no sealed text");
        assert!(Facts::of(&pages, None).api_key, "the popup does not ask for a key again");
        assert!(!Facts::of(&Settings::default().for_pages(), None).api_key);
    }

    #[test]
    fn only_a_first_install_opens_the_welcome_page() {
        assert_eq!(on_installed("install", None, "0.1.0"), Installed::OpenWelcome);
        for reason in ["update", "chrome_update", "shared_module_update", "", "teleport"] {
            assert_ne!(on_installed(reason, Some("0.0.1"), "0.1.0"), Installed::OpenWelcome);
        }
    }

    #[test]
    fn an_update_keeps_the_notice_and_a_reload_of_the_same_version_does_not() {
        assert_eq!(
            on_installed("update", Some("0.0.9"), "0.1.0"),
            Installed::Notice(Notice { version: "0.1.0".into(), dismissed: false })
        );
        assert_eq!(on_installed("update", Some("0.1.0"), "0.1.0"), Installed::Nothing);
        assert_eq!(on_installed("update", None, "0.1.0"), Installed::Nothing);
        assert_eq!(on_installed("chrome_update", Some("0.0.9"), "0.1.0"), Installed::Nothing);
    }
}
