//! Why a page cannot be read, from what Chrome answered, and what to tell the person and the
//! model. Chrome's messages are those of `extensions/common/manifest_constants.h`
//! (chromium), matched by their stable beginnings.

use crate::text::Text;
use crate::web_url;

/// Why GemiPanel could not read a tab.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AccessProblem {
    /// A page Chrome lets no extension read: its own pages, the Web Store, the new tab page,
    /// other extensions' pages, a PDF in Chrome's viewer. `what` names it for the person.
    Restricted { what: String },
    /// GemiPanel has no access to the site yet: `pattern` is the host permission to ask for
    /// in the person's click (`None` when the tab's URL is hidden from GemiPanel).
    NeedsSite { host: Option<String>, pattern: Option<String> },
    /// A `file://` page, with "Allow access to file URLs" off.
    FileAccess,
    /// The tab shows Chrome's error page.
    ErrorPage,
    /// The tab is gone.
    NoTab,
    /// Anything else, in Chrome's words.
    Other(String),
}

impl AccessProblem {
    /// Reads Chrome's refusal of `chrome.scripting.executeScript` on a tab at `url` (when
    /// GemiPanel may know it).
    pub fn from_chrome(message: &str, url: Option<&str>) -> Self {
        let url = url.filter(|u| !u.is_empty());
        let has = |needle: &str| message.contains(needle);
        if has("Cannot access a chrome://") || has("cannot be scripted") {
            return Self::Restricted { what: what_restricted(url.unwrap_or("chrome://")) };
        }
        if has("chrome-extension:// URL of different extension") {
            return Self::Restricted {
                what: what_restricted(url.unwrap_or("chrome-extension://")),
            };
        }
        if has("is showing error page") {
            return Self::ErrorPage;
        }
        if has("No tab with id") {
            return Self::NoTab;
        }
        if url.is_some_and(|u| u.starts_with("file:")) {
            return Self::FileAccess;
        }
        if has("Cannot access contents of") || has("must request permission") || has("activeTab") {
            return Self::needs_site(url);
        }
        Self::Other(message.to_owned())
    }

    /// What to say before trying, when the URL alone shows the page cannot be read.
    pub fn before_reading(url: &str) -> Option<Self> {
        is_restricted(url).then(|| Self::Restricted { what: what_restricted(url) })
    }

    fn needs_site(url: Option<&str>) -> Self {
        let parsed = url.and_then(web_url::parse);
        let host = parsed.as_ref().and_then(|u| u.host_str().map(str::to_owned));
        let pattern = parsed
            .filter(|u| matches!(u.scheme.as_str(), "http" | "https"))
            .and_then(|u| crate::url_policy::host_permission(u.as_str()));
        Self::NeedsSite { host, pattern }
    }

    /// For the person (and, in English, for the model).
    pub fn text(&self) -> Text {
        match self {
            Self::Restricted { what } => Text::new("pageRestricted").arg(what),
            Self::NeedsSite { host: Some(host), .. } => Text::new("pageNeedsSite").arg(host),
            Self::NeedsSite { host: None, .. } => Text::new("pageNeedsInvocation"),
            Self::FileAccess => Text::new("pageFileAccess"),
            Self::ErrorPage => Text::new("pageErrorPage"),
            Self::NoTab => Text::new("pageNoTab"),
            Self::Other(message) => Text::new("pageReadFailed").arg(message),
        }
    }

    /// The host permission that would let GemiPanel read the page, to ask for in a click.
    pub fn permission_to_ask(&self) -> Option<&str> {
        match self {
            Self::NeedsSite { pattern, .. } => pattern.as_deref(),
            _ => None,
        }
    }
}

/// Pages no extension may read, known from their URL.
pub fn is_restricted(url: &str) -> bool {
    let lower = url.trim().to_ascii_lowercase();
    let schemes = [
        "chrome:",
        "chrome-untrusted:",
        "devtools:",
        "edge:",
        "about:",
        "view-source:",
        "chrome-search:",
    ];
    schemes.iter().any(|s| lower.starts_with(s))
        || lower.starts_with("https://chromewebstore.google.com")
        || lower.starts_with("https://chrome.google.com/webstore")
}

/// How the person would name a restricted page: its scheme's kind or its host.
fn what_restricted(url: &str) -> String {
    let lower = url.to_ascii_lowercase();
    if lower.contains("chromewebstore.google.com") || lower.contains("chrome.google.com/webstore") {
        return "Chrome Web Store".into();
    }
    if lower.ends_with(".pdf") || lower.contains(".pdf?") || lower.contains(".pdf#") {
        return "PDF".into();
    }
    let end = url.find(['?', '#']).unwrap_or(url.len());
    url[..end].chars().take(80).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chromes_refusals_are_told_apart() {
        let chrome =
            AccessProblem::from_chrome("Cannot access a chrome:// URL", Some("chrome://settings/"));
        assert_eq!(chrome, AccessProblem::Restricted { what: "chrome://settings/".into() });
        let store = AccessProblem::from_chrome(
            "The extensions gallery cannot be scripted.",
            Some("https://chromewebstore.google.com/detail/x"),
        );
        assert_eq!(store, AccessProblem::Restricted { what: "Chrome Web Store".into() });
        let pdf = AccessProblem::from_chrome(
            "Cannot access a chrome-extension:// URL of different extension",
            Some("https://example.com/a.pdf"),
        );
        assert_eq!(pdf, AccessProblem::Restricted { what: "PDF".into() });
        assert_eq!(
            AccessProblem::from_chrome("Frame with ID 0 is showing error page", None),
            AccessProblem::ErrorPage
        );
        assert_eq!(AccessProblem::from_chrome("No tab with id: 7.", None), AccessProblem::NoTab);
    }

    #[test]
    fn a_site_without_access_asks_for_its_host_permission() {
        let message = "Cannot access contents of the page. Extension manifest must request \
                       permission to access the respective host.";
        let problem = AccessProblem::from_chrome(message, Some("https://news.example/a?b=1"));
        assert_eq!(problem.permission_to_ask(), Some("https://news.example/*"));
        assert!(problem.text().to_string().contains("news.example"));
        let hidden = AccessProblem::from_chrome(message, None);
        assert_eq!(hidden, AccessProblem::NeedsSite { host: None, pattern: None });
        let file = AccessProblem::from_chrome(message, Some("file:///home/a.html"));
        assert_eq!(file, AccessProblem::FileAccess);
        let other = AccessProblem::from_chrome("Something new", None);
        assert!(other.text().to_string().contains("Something new"));
    }

    #[test]
    fn restricted_pages_are_known_by_their_url() {
        for url in [
            "chrome://extensions",
            "about:blank",
            "view-source:https://a.b",
            "https://chromewebstore.google.com/",
        ] {
            assert!(AccessProblem::before_reading(url).is_some(), "{url}");
        }
        assert!(AccessProblem::before_reading("https://example.com").is_none());
    }
}
