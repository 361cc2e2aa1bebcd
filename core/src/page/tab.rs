//! What the side panel's script in `browser/js/page.js` answers: one JSON type for every call
//! (a read, a selection, a capture, a tab list), `ok` or Chrome's refusal with the tab's URL.

use serde::Deserialize;

use super::access::AccessProblem;
use super::browser_tools::TabInfo;
use super::extract::PageRead;

/// A tab as `chrome.tabs` shows it to GemiPanel: `url` and `title` only where it may see them
/// (the `tabs` permission, a host permission for the page, or an `activeTab` grant).
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct Tab {
    pub id: i32,
    pub window_id: i32,
    pub active: bool,
    pub status: Option<String>,
    pub url: Option<String>,
    pub title: Option<String>,
    pub favicon: Option<String>,
}

impl Tab {
    pub fn info(&self) -> TabInfo {
        TabInfo {
            id: self.id,
            title: self.title.clone(),
            url: self.url.clone(),
            active: self.active,
        }
    }

    /// GemiPanel may see where the tab is.
    pub fn is_visible(&self) -> bool {
        self.url.is_some()
    }
}

/// One answer of the page script.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct InTab {
    pub ok: bool,
    /// Chrome's words when not `ok`.
    pub error: Option<String>,
    /// The URL of the tab that refused, where GemiPanel may know it.
    pub url: Option<String>,
    pub tab: Option<Tab>,
    pub tabs: Vec<Tab>,
    pub read: Option<PageRead>,
    /// The document's MIME type (`application/pdf` in Chrome's PDF viewer).
    pub content_type: Option<String>,
    pub title: Option<String>,
    /// A selection or the page's visible text.
    pub text: Option<String>,
    pub cut: bool,
    /// What the WebMCP lister found (`{supported, secure, origin, tools}`).
    pub model_context: Option<serde_json::Value>,
    /// What a page's tool answered: a string, `null` when the call navigated the page.
    pub result: Option<serde_json::Value>,
    // A capture.
    pub mime: Option<String>,
    pub data: Option<String>,
    pub width: u32,
    pub height: u32,
    pub captured_width: u32,
    pub captured_height: u32,
}

impl InTab {
    /// Reads the script's JSON; a broken answer is a failure in words.
    pub fn parse(json: &str) -> Self {
        serde_json::from_str(json).unwrap_or_else(|e| InTab {
            error: Some(format!("the page's answer did not read: {e}")),
            ..InTab::default()
        })
    }

    /// The answer, or why the tab could not be read.
    pub fn checked(self) -> Result<Self, AccessProblem> {
        let url = self.url.clone().or_else(|| self.tab.as_ref().and_then(|t| t.url.clone()));
        if self.ok {
            if self.content_type.as_deref() == Some("application/pdf") {
                return Err(AccessProblem::Restricted { what: "PDF".into() });
            }
            return Ok(self);
        }
        let message = self.error.as_deref().unwrap_or("the page did not answer");
        Err(AccessProblem::from_chrome(message, url.as_deref()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn answers_are_read_and_refusals_explained() {
        let ok = InTab::parse(
            r#"{"ok": true, "read": {"url": "https://a.example/", "title": "A", "blocks": []},
            "tab": {"id": 4, "windowId": 1, "active": true, "url": "https://a.example/", "title": "A"}}"#,
        );
        let ok = ok.checked().unwrap();
        assert_eq!(ok.read.unwrap().title, "A");
        assert!(ok.tab.unwrap().is_visible());
        let refused = InTab::parse(
            r#"{"ok": false, "error": "Cannot access a chrome:// URL", "url": "chrome://version/"}"#,
        );
        assert_eq!(
            refused.checked(),
            Err(AccessProblem::Restricted { what: "chrome://version/".into() })
        );
        let pdf = InTab::parse(r#"{"ok": true, "contentType": "application/pdf"}"#);
        assert_eq!(pdf.checked(), Err(AccessProblem::Restricted { what: "PDF".into() }));
        let broken = InTab::parse("{");
        assert!(
            matches!(broken.checked(), Err(AccessProblem::Other(m)) if m.contains("did not read"))
        );
        let hidden = InTab::parse(r#"{"ok": true, "tab": {"id": 9}}"#);
        assert!(!hidden.tab.unwrap().is_visible());
    }
}
