//! The context menu's items ("Ask GemiPanel about this selection / page / image / link"):
//! what the worker registers, and what a click leaves for the side panel of that window to
//! attach to the next message. The worker keeps clicks in `chrome.storage.session` under
//! [`PENDING_KEY`] as Chrome gave them ([`keep_click`]: it reads none of them, which keeps
//! the worker's wasm small); the panel takes those of its window ([`take_for_window`]).

use serde::{Deserialize, Serialize};

use super::browser_tools::{cap_chars, MAX_SELECTION_CHARS};
use super::context::{Body, ContextKind, ContextLabel, ContextPart};

/// Where clicks wait for the side panel (`chrome.storage.session`).
pub const PENDING_KEY: &str = "page_context_pending";
/// Bytes of an image attached from the menu at most.
pub const MAX_IMAGE_BYTES: usize = 4_000_000;
/// Clicks kept at most; older ones go.
const MAX_PENDING: usize = 8;

/// One item of the menu.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum MenuItem {
    Selection,
    Page,
    Image,
    Link,
}

impl MenuItem {
    pub const ALL: [Self; 4] = [Self::Selection, Self::Link, Self::Image, Self::Page];

    /// The item's `id` for `chrome.contextMenus`.
    pub fn id(self) -> &'static str {
        match self {
            Self::Selection => "gemipanel-ask-selection",
            Self::Page => "gemipanel-ask-page",
            Self::Image => "gemipanel-ask-image",
            Self::Link => "gemipanel-ask-link",
        }
    }

    pub fn from_id(id: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|item| item.id() == id)
    }

    /// The `contexts` the item shows in.
    pub fn context(self) -> &'static str {
        match self {
            Self::Selection => "selection",
            Self::Page => "page",
            Self::Image => "image",
            Self::Link => "link",
        }
    }

    /// Its title's `_locales` key (`%s` in it is the selection, as Chrome substitutes it).
    pub fn title_key(self) -> &'static str {
        match self {
            Self::Selection => "menuAskSelection",
            Self::Page => "menuAskPage",
            Self::Image => "menuAskImage",
            Self::Link => "menuAskLink",
        }
    }
}

/// What `chrome.contextMenus.onClicked` hands over (`OnClickData` and the tab), as JSON.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct Click {
    pub menu_item_id: String,
    pub page_url: Option<String>,
    pub frame_url: Option<String>,
    pub selection_text: Option<String>,
    pub src_url: Option<String>,
    pub link_url: Option<String>,
    /// The link's text (Chrome 132 and later).
    pub link_text: Option<String>,
    pub media_type: Option<String>,
    pub tab_id: Option<i32>,
    pub window_id: Option<i32>,
    pub tab_title: Option<String>,
}

/// A click waiting for the side panel of its window.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Pending {
    pub item: MenuItem,
    pub window_id: i32,
    pub tab_id: i32,
    pub page_url: String,
    #[serde(default)]
    pub page_title: String,
    /// The selection, the image's source or the link's target.
    #[serde(default)]
    pub value: String,
    /// A link's text, when Chrome gave it.
    #[serde(default)]
    pub link_text: Option<String>,
}

impl Pending {
    /// The click, when it is one of GemiPanel's items on a tab.
    pub fn from_click(click: &Click) -> Option<Self> {
        let item = MenuItem::from_id(&click.menu_item_id)?;
        let value = match item {
            MenuItem::Selection => click.selection_text.clone()?,
            MenuItem::Image => click.src_url.clone()?,
            MenuItem::Link => click.link_url.clone()?,
            MenuItem::Page => String::new(),
        };
        let (value, _) = cap_chars(&value, MAX_SELECTION_CHARS);
        Some(Pending {
            item,
            window_id: click.window_id?,
            tab_id: click.tab_id?,
            page_url: click
                .page_url
                .clone()
                .or_else(|| click.frame_url.clone())
                .unwrap_or_default(),
            page_title: click.tab_title.clone().unwrap_or_default(),
            value: value.to_owned(),
            link_text: click.link_text.clone().filter(|t| !t.trim().is_empty()),
        })
    }

    /// The context part a selection or a link becomes (an image is fetched first: see
    /// [`Pending::image_part`]; the page turns the chip on instead).
    pub fn part(&self) -> Option<ContextPart> {
        let (kind, url, title, body) = match self.item {
            MenuItem::Selection => (
                ContextKind::Selection,
                &self.page_url,
                &self.page_title,
                Body::Text(self.value.clone()),
            ),
            MenuItem::Link => {
                let text = self.link_text.as_ref().unwrap_or(&self.value);
                (ContextKind::Link, &self.value, text, Body::None)
            }
            MenuItem::Image | MenuItem::Page => return None,
        };
        let page_url = (self.item == MenuItem::Link).then(|| self.page_url.clone());
        Some(ContextPart {
            label: ContextLabel { kind, title: title.clone(), url: url.clone(), server_id: None },
            body,
            page_url,
            notes: Vec::new(),
        })
    }

    /// The image's context part, from its bytes (base64) or, when they could not be fetched,
    /// its address with the reason.
    pub fn image_part(&self, fetched: Result<(String, String), String>) -> ContextPart {
        let name =
            self.value.rsplit('/').next().unwrap_or_default().chars().take(80).collect::<String>();
        let label = ContextLabel {
            kind: ContextKind::Image,
            title: name,
            url: self.value.clone(),
            server_id: None,
        };
        let (body, notes) = match fetched {
            Ok((mime_type, data)) => (Body::Image { mime_type, data }, Vec::new()),
            Err(why) => (
                Body::None,
                vec![format!(
                    "GemiPanel could not fetch the image ({why}); only its address is known."
                )],
            ),
        };
        ContextPart { label, body, page_url: Some(self.page_url.clone()), notes }
    }
}

/// The kept clicks (a JSON array, or anything: then none) after adding `click` (the oldest go
/// past [`MAX_PENDING`]).
pub fn keep_click(kept: serde_json::Value, click: serde_json::Value) -> serde_json::Value {
    let mut list = match kept {
        serde_json::Value::Array(list) => list,
        _ => Vec::new(),
    };
    list.push(click);
    let excess = list.len().saturating_sub(MAX_PENDING);
    list.drain(..excess);
    serde_json::Value::Array(list)
}

/// Of the kept clicks, those of GemiPanel's items in window `window_id`, read; and the ones
/// that stay for other windows.
pub fn take_for_window(
    kept: serde_json::Value,
    window_id: i32,
) -> (Vec<Pending>, serde_json::Value) {
    let serde_json::Value::Array(list) = kept else {
        return (Vec::new(), serde_json::Value::Array(Vec::new()));
    };
    let (mine, others): (Vec<_>, Vec<_>) = list.into_iter().partition(|click| {
        click.get("windowId").and_then(serde_json::Value::as_i64) == Some(window_id.into())
    });
    let read = mine
        .into_iter()
        .filter_map(|click| serde_json::from_value::<Click>(click).ok())
        .filter_map(|click| Pending::from_click(&click))
        .collect();
    (read, serde_json::Value::Array(others))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn click(json: serde_json::Value) -> Click {
        serde_json::from_value(json).unwrap()
    }

    #[test]
    fn clicks_on_our_items_become_pending_context() {
        let selection = Pending::from_click(&click(serde_json::json!({
            "menuItemId": "gemipanel-ask-selection", "pageUrl": "https://a.example/x",
            "selectionText": "picked words", "tabId": 4, "windowId": 1, "tabTitle": "A", "editable": false
        })))
        .unwrap();
        assert_eq!(selection.item, MenuItem::Selection);
        let part = selection.part().unwrap();
        assert_eq!(
            part.label,
            ContextLabel {
                kind: ContextKind::Selection,
                title: "A".into(),
                url: "https://a.example/x".into(),
                server_id: None,
            }
        );
        assert_eq!(part.body, Body::Text("picked words".into()));

        let link = Pending::from_click(&click(serde_json::json!({
            "menuItemId": "gemipanel-ask-link", "pageUrl": "https://a.example/x",
            "linkUrl": "https://b.example/y", "tabId": 4, "windowId": 1
        })))
        .unwrap();
        let part = link.part().unwrap();
        assert_eq!(part.label.url, "https://b.example/y");
        assert_eq!(part.label.title, "https://b.example/y", "no link text: the address");
        assert_eq!(part.page_url.as_deref(), Some("https://a.example/x"));

        let image = Pending::from_click(&click(serde_json::json!({
            "menuItemId": "gemipanel-ask-image", "pageUrl": "https://a.example/x",
            "srcUrl": "https://a.example/img/cup.png", "mediaType": "image", "tabId": 4, "windowId": 1
        })))
        .unwrap();
        assert!(image.part().is_none());
        let fetched = image.image_part(Ok(("image/png".into(), "AA==".into())));
        assert_eq!(fetched.label.title, "cup.png");
        assert_eq!(
            fetched.body,
            Body::Image { mime_type: "image/png".into(), data: "AA==".into() }
        );
        let failed = image.image_part(Err("404".into()));
        assert!(failed.notes[0].contains("404"));

        // Not ours, or without a tab: nothing.
        assert!(Pending::from_click(&click(
            serde_json::json!({"menuItemId": "other", "tabId": 1, "windowId": 1})
        ))
        .is_none());
        assert!(Pending::from_click(&click(
            serde_json::json!({"menuItemId": "gemipanel-ask-page"})
        ))
        .is_none());
    }

    #[test]
    fn clicks_are_kept_bounded_and_taken_by_their_window() {
        let click = |window: i32, tab: i32| serde_json::json!({"menuItemId": "gemipanel-ask-page", "windowId": window, "tabId": tab});
        let mut kept = serde_json::Value::Null;
        for n in 0..10 {
            kept = keep_click(kept, click(if n % 2 == 0 { 1 } else { 2 }, n));
        }
        assert_eq!(kept.as_array().unwrap().len(), MAX_PENDING);
        assert_eq!(kept[0]["tabId"], 2);
        let kept =
            keep_click(kept, serde_json::json!({"menuItemId": "someone else's", "windowId": 1}));
        let (mine, others) = take_for_window(kept, 1);
        assert_eq!(mine.iter().map(|p| p.tab_id).collect::<Vec<_>>(), [4, 6, 8]);
        assert!(mine.iter().all(|p| p.item == MenuItem::Page));
        assert!(others.as_array().unwrap().iter().all(|c| c["windowId"] == 2));
        assert_eq!(take_for_window(serde_json::json!("junk"), 1).0, []);
    }

    #[test]
    fn every_item_has_an_id_a_context_and_a_title() {
        for item in MenuItem::ALL {
            assert_eq!(MenuItem::from_id(item.id()), Some(item));
            assert!(crate::text::is_known(item.title_key()), "{}", item.title_key());
        }
    }
}
