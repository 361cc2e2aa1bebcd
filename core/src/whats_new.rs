//! The changelog notice: after an update the side panel shows one line of what is new in the
//! version installed, in the person's language, until it is dismissed.
//!
//! The worker keeps a [`Notice`] under [`STORAGE_KEY`] when `onInstalled` reports an update
//! (`first_run::on_installed`); the side panel shows its line and, dismissed, writes it back
//! with `dismissed` set, so it stays away until the next update with news.

use std::cmp::Ordering;

use serde::{Deserialize, Serialize};

use crate::text::Text;

/// The `chrome.storage.local` key of [`Notice`].
pub const STORAGE_KEY: &str = "whats_new";

/// What is new, by version: the `_locales` key of its line, newest first. A version without
/// news for people (a fix only) has no entry and shows nothing.
const CHANGES: &[(&str, &str)] = &[("0.1.0", "whatsNew_0_1_0")];

/// The notice of one version, as stored.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Notice {
    pub version: String,
    #[serde(default)]
    pub dismissed: bool,
}

impl Notice {
    /// The stored document as JSON text; absent or unreadable shows nothing.
    pub fn from_stored(text: Option<&str>) -> Option<Notice> {
        text.and_then(|t| serde_json::from_str(t).ok())
    }

    pub fn to_stored(&self) -> String {
        serde_json::to_string(self).unwrap_or_default()
    }

    /// The line to show, while not dismissed.
    pub fn line(&self) -> Option<Text> {
        if self.dismissed {
            return None;
        }
        let (version, key) = CHANGES.iter().find(|(v, _)| *v == self.version)?;
        Some(Text::new(key).arg(version))
    }

    pub fn dismiss(&mut self) {
        self.dismissed = true;
    }
}

/// The notice after an update from `previous` to `current`: the newest version with news in
/// between (`previous` < version ≤ `current`), so an update that skipped versions names the
/// newest. Nothing for the same version (a reload while developing), a downgrade or a version
/// Chrome would not accept.
pub fn after_update(previous: &str, current: &str) -> Option<Notice> {
    let (from, to) = (parse(previous)?, parse(current)?);
    CHANGES
        .iter()
        .filter_map(|(v, _)| Some((*v, parse(v)?)))
        .filter(|(_, v)| {
            compare(v, &from) == Ordering::Greater && compare(v, &to) != Ordering::Greater
        })
        .max_by(|(_, a), (_, b)| compare(a, b))
        .map(|(version, _)| Notice { version: version.to_owned(), dismissed: false })
}

/// A manifest version: one to four dot-separated integers of 0 to 65535
/// (<https://developer.chrome.com/docs/extensions/reference/manifest/version>).
fn parse(version: &str) -> Option<Vec<u16>> {
    let parts: Option<Vec<u16>> = version.split('.').map(|p| p.parse().ok()).collect();
    parts.filter(|p| (1..=4).contains(&p.len()))
}

/// Missing parts count as 0: 1.0 is 1.0.0.
fn compare(a: &[u16], b: &[u16]) -> Ordering {
    let at = |v: &[u16], i: usize| v.get(i).copied().unwrap_or(0);
    (0..a.len().max(b.len()))
        .map(|i| at(a, i).cmp(&at(b, i)))
        .find(|o| o.is_ne())
        .unwrap_or(Ordering::Equal)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn notice(version: &str) -> Option<Notice> {
        Some(Notice { version: version.into(), dismissed: false })
    }

    #[test]
    fn an_update_to_a_version_with_news_keeps_its_notice() {
        assert_eq!(after_update("0.0.9", "0.1.0"), notice("0.1.0"));
        assert_eq!(after_update("0.0", "0.1.0.0"), notice("0.1.0"));
        // A later version without news of its own still brought 0.1.0's.
        assert_eq!(after_update("0.0.1", "0.1.5"), notice("0.1.0"));
    }

    #[test]
    fn the_same_version_a_downgrade_or_no_news_keep_nothing() {
        assert_eq!(after_update("0.1.0", "0.1.0"), None);
        assert_eq!(after_update("0.1", "0.1.0"), None, "0.1 is 0.1.0");
        assert_eq!(after_update("0.2.0", "0.1.0"), None);
        assert_eq!(after_update("0.1.0", "0.1.7"), None);
    }

    #[test]
    fn versions_chrome_would_refuse_keep_nothing() {
        for bad in ["", "1.x", "1..0", "-1", "1.2.3.4.5", "70000", " 0.0.1"] {
            assert_eq!(after_update(bad, "0.1.0"), None, "{bad:?}");
            assert_eq!(after_update("0.0.1", bad), None, "{bad:?}");
        }
    }

    #[test]
    fn the_line_shows_until_dismissed() {
        let mut kept = Notice { version: "0.1.0".into(), dismissed: false };
        assert_eq!(kept.line(), Some(Text::new("whatsNew_0_1_0").arg("0.1.0")));
        kept.dismiss();
        assert_eq!(kept.line(), None);
        let unknown = Notice { version: "9.9".into(), dismissed: false };
        assert_eq!(unknown.line(), None, "a version the table does not know says nothing");
    }

    #[test]
    fn the_stored_form_round_trips_and_bad_text_shows_nothing() {
        let kept = Notice { version: "0.1.0".into(), dismissed: true };
        assert_eq!(Notice::from_stored(Some(&kept.to_stored())), Some(kept));
        for bad in ["", "null", "{}", r#"{"version":1}"#, "[]"] {
            assert_eq!(Notice::from_stored(Some(bad)), None, "{bad}");
        }
    }

    #[test]
    fn every_line_is_worded_in_english_and_japanese() {
        for lang in [
            include_str!("../../static/_locales/en/messages.json"),
            include_str!("../../static/_locales/ja/messages.json"),
        ] {
            let messages: serde_json::Value = serde_json::from_str(lang).unwrap();
            for (version, key) in CHANGES {
                let message = messages[key]["message"].as_str().unwrap_or_default();
                assert!(!message.is_empty(), "{key} is missing");
                assert!(parse(version).is_some(), "{version}");
            }
        }
    }
}
