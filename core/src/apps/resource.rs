//! A tool's UI resource: the app's HTML and what it asks of its host.

use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use std::rc::{Rc, Weak};

use base64::Engine;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use sha2::{Digest, Sha256};

use super::csp::DeclaredCsp;
use super::MIME_TYPE;
use crate::mcp::{Error, ReadResourceResult, ResourceContents};
use crate::text::{Arg, Text};

/// The largest app HTML accepted (the published React examples are about 400 KB).
pub const MAX_HTML_BYTES: usize = 8 * 1024 * 1024;

/// `_meta.ui` of an app resource (and, for what the resource leaves out, of its tool).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct UiResourceMeta {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub csp: Option<DeclaredCsp>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub permissions: Option<Permissions>,
    /// A dedicated origin; this host gives every app an opaque one and ignores it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub domain: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prefers_border: Option<bool>,
}

/// Browser capabilities an app asks for (`_meta.ui.permissions`); granted only when the person
/// allows them.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Permissions {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub camera: Option<Asked>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub microphone: Option<Asked>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub geolocation: Option<Asked>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub clipboard_write: Option<Asked>,
}

/// A permission's `{}`: its presence is the request (members, if any, are not used).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Asked {}

impl Permissions {
    /// The Permissions Policy features asked for, in the iframe `allow` attribute's words.
    pub fn features(&self) -> Vec<&'static str> {
        [
            (self.camera.is_some(), "camera"),
            (self.microphone.is_some(), "microphone"),
            (self.geolocation.is_some(), "geolocation"),
            (self.clipboard_write.is_some(), "clipboard-write"),
        ]
        .into_iter()
        .filter_map(|(asked, name)| asked.then_some(name))
        .collect()
    }
}

/// An app, ready to be framed. `Eq`: an `Rc` of one then compares by address first, so the
/// cards of one app do not compare its HTML (hundreds of KB) at each render.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct AppResource {
    pub uri: String,
    pub html: String,
    #[serde(default)]
    pub meta: UiResourceMeta,
    /// The HTML's [`html_digest`]: a page that holds this app sends it when it reads the app
    /// again, and is told "unchanged" instead of being sent the HTML once more. Empty in
    /// chats stored before.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub digest: String,
}

/// The worker's answer to a page reading an app (`Request::ReadApp`): the app, without its
/// HTML when that is the copy the page holds (the digest the page sent).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct AppRead {
    #[serde(default)]
    pub meta: UiResourceMeta,
    pub digest: String,
    /// `None`: the page's copy.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub html: Option<String>,
}

/// Reads the app `uri` out of a `resources/read` result.
pub fn app_resource(uri: &str, result: ReadResourceResult) -> Result<AppResource, Text> {
    let mut contents = result.contents;
    let at = contents.iter().position(|c| c.uri == uri).unwrap_or(0);
    if at >= contents.len() {
        return Err(Text::new("errAppNoContents").arg(uri));
    }
    let contents = contents.swap_remove(at);
    let mime = contents.mime_type.as_deref().unwrap_or("");
    if !is_app_mime(mime) {
        return Err(Text::new("errAppWrongType").arg(mime).arg(MIME_TYPE));
    }
    let meta = ui_meta(contents.meta.as_ref()).unwrap_or_default();
    let html = html_of(uri, contents)?;
    let digest = html_digest(&html);
    Ok(AppResource { uri: uri.to_owned(), html, meta, digest })
}

/// The app `uri` out of a `resources/read` result, for a page that holds the copy of digest
/// `held`: the whole app only when the HTML is not that copy. An app shown again is then not
/// carried to the page again (hundreds of KB, each time a new block of the page's memory).
pub fn app_read(
    uri: &str,
    result: ReadResourceResult,
    held: Option<&str>,
) -> Result<AppRead, Text> {
    let AppResource { html, meta, digest, .. } = app_resource(uri, result)?;
    let html = (held != Some(digest.as_str())).then_some(html);
    Ok(AppRead { meta, digest, html })
}

impl AppRead {
    /// The app `uri` as the page shows it, its `_meta.ui` completed from its tool's definition
    /// `tool`; `held` is the copy whose digest the page sent. `None`: no HTML came, and the
    /// page holds no copy of this digest.
    pub fn into_resource(
        self,
        uri: &str,
        held: Option<Rc<AppResource>>,
        tool: &Value,
    ) -> Option<Rc<AppResource>> {
        let meta = self.meta.completed_from(tool);
        let Some(html) = self.html else {
            let held = held.filter(|held| held.uri == uri && held.digest == self.digest)?;
            if meta == held.meta {
                return Some(held);
            }
            // Another tool of the same app, say, that wants a border the first did not.
            return Some(Rc::new(AppResource { meta, ..(*held).clone() }));
        };
        Some(Rc::new(AppResource { uri: uri.to_owned(), html, meta, digest: self.digest }))
    }
}

/// `resource`, or the equal one among `kept` that something still holds; a resource not there
/// joins them (weakly: a copy nothing holds any more goes).
pub fn one_copy(kept: &mut Vec<Weak<AppResource>>, resource: Rc<AppResource>) -> Rc<AppResource> {
    kept.retain(|copy| copy.strong_count() > 0);
    if let Some(copy) = kept.iter().filter_map(Weak::upgrade).find(|copy| *copy == resource) {
        return copy;
    }
    kept.push(Rc::downgrade(&resource));
    resource
}

/// The copy among `kept` that something still holds of the HTML of `digest` (none for an empty
/// digest: a chat stored before digests).
pub fn kept_copy(kept: &[Weak<AppResource>], digest: &str) -> Option<Rc<AppResource>> {
    let digest = (!digest.is_empty()).then_some(digest)?;
    kept.iter().filter_map(Weak::upgrade).find(|copy| copy.digest == digest)
}

impl AppResource {
    /// This resource, read without its HTML, with the HTML of `held` (a copy of the same
    /// digest): `held` itself when all the rest is the same too.
    pub fn with_html_of(&self, held: &Rc<AppResource>) -> Rc<AppResource> {
        let rest_is_same =
            self.uri == held.uri && self.meta == held.meta && self.digest == held.digest;
        if rest_is_same {
            return held.clone();
        }
        Rc::new(AppResource { html: held.html.clone(), ..self.clone() })
    }
}

/// SHA-256 of the HTML, base64url.
pub fn html_digest(html: &str) -> String {
    URL_SAFE_NO_PAD.encode(Sha256::digest(html.as_bytes()))
}

/// Why the app's resource could not be read, for the place under its tool card, which names
/// the server already: what the server said when it answered with an error; otherwise the
/// failure, without the server's address and the protocol method.
pub fn unreadable(error: &Text) -> Text {
    let mut detail = Error::without_server(error);
    if detail.key == "errMethodDetail" {
        if let [_, Arg::Text(inner)] = detail.args.as_slice() {
            detail = inner.clone();
        }
    }
    match (detail.key.as_ref(), detail.args.as_slice()) {
        ("errMcpRpc", [_, Arg::Plain(said)]) => Text::new("errAppServerSaid").arg(said),
        _ => detail,
    }
}

impl UiResourceMeta {
    /// Fills what the resource left out from its tool's `_meta.ui` (never `csp` or
    /// `permissions`: those belong to the resource).
    pub fn completed_from(mut self, tool: &Value) -> Self {
        let ui = tool.pointer("/_meta/ui");
        let field = |name: &str| ui.and_then(|ui| ui.get(name));
        self.prefers_border =
            self.prefers_border.or(field("prefersBorder").and_then(Value::as_bool));
        self.domain = self.domain.or(field("domain").and_then(Value::as_str).map(str::to_owned));
        self
    }
}

/// `text/html;profile=mcp-app`, compared as a media type: case and spaces around `;` do not
/// matter, other parameters may follow.
pub fn is_app_mime(mime: &str) -> bool {
    let mut parts = mime.split(';').map(str::trim);
    let essence = parts.next().unwrap_or("");
    essence.eq_ignore_ascii_case("text/html")
        && parts.any(|p| {
            p.split_once('=').is_some_and(|(k, v)| {
                k.trim().eq_ignore_ascii_case("profile") && v.trim().trim_matches('"') == "mcp-app"
            })
        })
}

fn html_of(uri: &str, contents: ResourceContents) -> Result<String, Text> {
    if let Some(text) = contents.text {
        if text.len() > MAX_HTML_BYTES {
            return Err(Text::new("errAppTooLarge").arg(uri).arg(MAX_HTML_BYTES / 1024 / 1024));
        }
        return Ok(text);
    }
    let blob = contents.blob.as_deref().ok_or_else(|| Text::new("errAppNoContents").arg(uri))?;
    // Base64 is 4/3 of the bytes: refuse before decoding what would be too large anyway.
    if blob.len() / 4 * 3 > MAX_HTML_BYTES {
        return Err(Text::new("errAppTooLarge").arg(uri).arg(MAX_HTML_BYTES / 1024 / 1024));
    }
    let bytes = base64::engine::general_purpose::STANDARD
        .decode(blob.trim())
        .map_err(|e| Text::new("errAppBadBlob").arg(uri).arg(e))?;
    String::from_utf8(bytes).map_err(|_| Text::new("errAppNotUtf8").arg(uri))
}

/// `_meta.ui` of a resource's contents; a malformed one counts as absent.
fn ui_meta(meta: Option<&Map<String, Value>>) -> Option<UiResourceMeta> {
    let ui = meta?.get("ui")?;
    serde_json::from_value(ui.clone()).ok()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn cards_of_one_app_compare_its_resource_by_address() {
        // `Rc<T>`'s `==` checks the address first only when `T: Eq`; without it, a tool card's
        // view compared the app's whole HTML whenever the card changed.
        fn by_address_first<T: Eq>(_: &std::rc::Rc<T>) {}
        let resource =
            AppResource { uri: "ui://a".into(), html: "<p>".into(), ..Default::default() };
        by_address_first(&std::rc::Rc::new(resource));
    }

    fn read(contents: Value) -> ReadResourceResult {
        serde_json::from_value(json!({ "contents": [contents] })).unwrap()
    }

    #[test]
    fn text_and_blob_resources_give_the_same_html() {
        let text = read(json!({"uri": "ui://a", "mimeType": MIME_TYPE, "text": "<p>héllo</p>"}));
        let blob = read(json!({"uri": "ui://a", "mimeType": "text/html; profile=mcp-app",
            "blob": base64::engine::general_purpose::STANDARD.encode("<p>héllo</p>")}));
        assert_eq!(app_resource("ui://a", text).unwrap().html, "<p>héllo</p>");
        assert_eq!(app_resource("ui://a", blob).unwrap().html, "<p>héllo</p>");
    }

    #[test]
    fn an_app_the_page_holds_is_not_sent_again() {
        let app = |html: &str| {
            read(json!({"uri": "ui://a", "mimeType": MIME_TYPE, "text": html,
                "_meta": {"ui": {"prefersBorder": false}}}))
        };
        let first = app_read("ui://a", app("<p>1</p>"), None).unwrap();
        assert_eq!(first.html.as_deref(), Some("<p>1</p>"), "a page that holds nothing gets it");
        assert_eq!(first.digest, html_digest("<p>1</p>"));
        let again = app_read("ui://a", app("<p>1</p>"), Some(&first.digest)).unwrap();
        assert_eq!(again, AppRead { html: None, ..first.clone() });
        // Changed on the server since, or a digest of something else: the whole app.
        let changed = app_read("ui://a", app("<p>2</p>"), Some(&first.digest)).unwrap();
        assert_eq!(changed.html.as_deref(), Some("<p>2</p>"));
        let other = app_read("ui://a", app("<p>1</p>"), Some("")).unwrap();
        assert_eq!(other.html.as_deref(), Some("<p>1</p>"));
        // What is not an app is refused whatever the page holds.
        let plain = read(json!({"uri": "ui://a", "mimeType": "text/html", "text": "<p>1</p>"}));
        let refused = app_read("ui://a", plain, Some(&first.digest)).unwrap_err();
        assert_eq!(refused.key, "errAppWrongType");
    }

    #[test]
    fn an_unchanged_app_is_the_copy_held_with_the_meta_of_its_tool() {
        let tool = |border: bool| json!({"name": "t", "_meta": {"ui": {"resourceUri": "ui://a", "prefersBorder": border}}});
        let read = |html: Option<&str>| AppRead {
            meta: UiResourceMeta::default(),
            digest: "d1".into(),
            html: html.map(str::to_owned),
        };
        let held = read(Some("<p>")).into_resource("ui://a", None, &tool(true)).unwrap();
        assert_eq!((held.uri.as_str(), held.digest.as_str()), ("ui://a", "d1"));
        assert_eq!(held.meta.prefers_border, Some(true));
        // The same tool: the very copy, so the cards share it.
        let again = read(None).into_resource("ui://a", Some(held.clone()), &tool(true)).unwrap();
        assert!(Rc::ptr_eq(&again, &held));
        // Another tool of the app: its own meta, the same HTML.
        let other = read(None).into_resource("ui://a", Some(held.clone()), &tool(false)).unwrap();
        assert_eq!((other.meta.prefers_border, &other.html), (Some(false), &held.html));
        // No copy, or a copy of something else: nothing to show.
        assert!(read(None).into_resource("ui://a", None, &tool(true)).is_none());
        let stale = AppRead { digest: "d2".into(), ..read(None) };
        assert!(stale.into_resource("ui://a", Some(held.clone()), &tool(true)).is_none());
        assert!(read(None).into_resource("ui://b", Some(held), &tool(true)).is_none());
    }

    #[test]
    fn a_resource_read_without_its_html_takes_the_kept_copy_of_its_digest() {
        let html = "<p>1</p>";
        let held = Rc::new(AppResource {
            uri: "ui://a".into(),
            html: html.into(),
            digest: html_digest(html),
            ..Default::default()
        });
        let kept = vec![Rc::downgrade(&held)];
        assert!(kept_copy(&kept, &html_digest("<p>2</p>")).is_none());
        assert!(kept_copy(&kept, "").is_none(), "no digest, no copy");
        let found = kept_copy(&kept, &held.digest).expect("the copy held");
        let read = AppResource { html: String::new(), ..(*held).clone() };
        assert!(Rc::ptr_eq(&read.with_html_of(&found), &held));
        // Another tool of the same app: the same HTML with meta of its own.
        let bordered = AppResource {
            meta: UiResourceMeta { prefers_border: Some(true), ..Default::default() },
            ..read
        };
        let other = bordered.with_html_of(&found);
        assert_eq!((other.html.as_str(), &other.meta), (html, &bordered.meta));
        drop((held, found));
        assert!(kept_copy(&kept, &html_digest(html)).is_none(), "nothing holds it any more");
    }

    #[test]
    fn views_of_one_app_share_one_copy_while_one_holds_it() {
        let app = |html: &str| {
            Rc::new(AppResource { uri: "ui://a".into(), html: html.into(), ..Default::default() })
        };
        let mut kept = Vec::new();
        let first = one_copy(&mut kept, app("<p>1</p>"));
        let again = one_copy(&mut kept, app("<p>1</p>"));
        assert!(Rc::ptr_eq(&first, &again));
        let other = one_copy(&mut kept, app("<p>2</p>"));
        assert!(!Rc::ptr_eq(&first, &other));
        assert_eq!(kept.len(), 2);
        drop((first, again));
        // Nothing holds the first any more: it is not kept, and comes anew.
        let anew = one_copy(&mut kept, app("<p>1</p>"));
        assert_eq!(Rc::strong_count(&anew), 1);
        assert_eq!(kept.len(), 2);
    }

    #[test]
    fn the_mime_type_must_be_an_app() {
        for (mime, ok) in [
            (MIME_TYPE, true),
            ("TEXT/HTML;Profile=\"mcp-app\"", true),
            ("text/html;charset=utf-8;profile=mcp-app", true),
            ("text/html", false),
            ("text/plain;profile=mcp-app", false),
            ("", false),
        ] {
            assert_eq!(is_app_mime(mime), ok, "{mime}");
        }
        let plain = read(json!({"uri": "ui://a", "mimeType": "text/html", "text": "<p>"}));
        let error = app_resource("ui://a", plain).unwrap_err();
        assert_eq!(
            error.to_string(),
            format!("the server sent “text/html”, which is not an app page ({MIME_TYPE}).")
        );
    }

    #[test]
    fn a_read_that_failed_says_what_the_server_said_without_its_address() {
        let rpc = Text::new("errMcpServerMethod")
            .arg("http://127.0.0.1:4000/mcp")
            .arg("resources/read")
            .with(Text::new("errMcpRpc").arg(-32002).arg("Resource not found: ui://a"));
        assert_eq!(
            unreadable(&rpc).to_string(),
            "the server answered “Resource not found: ui://a”."
        );
        // Named by the worker (a local server) and without a method: the same.
        let named = Text::new("errOnServer")
            .arg("Files")
            .with(Text::new("errMcpRpc").arg(-32603).arg("disk on fire"));
        assert_eq!(unreadable(&named).to_string(), "the server answered “disk on fire”.");
        // Other failures keep their words, not the address or the method.
        let refused = Text::new("errMcpServerMethod")
            .arg("http://127.0.0.1:4000/mcp")
            .arg("resources/read")
            .with(Text::new("errMcpTimeout").arg(30));
        assert_eq!(unreadable(&refused), Text::new("errMcpTimeout").arg(30));
        // A text of the worker's own passes as it is.
        let gone = Text::new("errServerGone").arg("Files");
        assert_eq!(unreadable(&gone), gone);
    }

    #[test]
    fn meta_comes_from_the_resource_then_the_tool() {
        let result = read(json!({"uri": "ui://a", "mimeType": MIME_TYPE, "text": "<p>",
            "_meta": {"ui": {"csp": {"connectDomains": ["https://api.example.com"]},
                             "permissions": {"camera": {}}}}}));
        let tool = json!({"name": "t", "inputSchema": {"type": "object"},
            "_meta": {"ui": {"resourceUri": "ui://a", "prefersBorder": true,
                             "csp": {"connectDomains": ["https://evil.example"]}}}});
        let meta = app_resource("ui://a", result).unwrap().meta.completed_from(&tool);
        assert_eq!(meta.csp.unwrap().connect_domains, ["https://api.example.com"]);
        assert_eq!(meta.permissions.unwrap().features(), ["camera"]);
        assert_eq!(meta.prefers_border, Some(true));
    }

    #[test]
    fn broken_resources_are_refused_with_a_reason() {
        let empty: ReadResourceResult = serde_json::from_value(json!({"contents": []})).unwrap();
        assert_eq!(app_resource("ui://a", empty).unwrap_err().key, "errAppNoContents");
        let bad = read(json!({"uri": "ui://a", "mimeType": MIME_TYPE, "blob": "!!!"}));
        assert_eq!(app_resource("ui://a", bad).unwrap_err().key, "errAppBadBlob");
        let latin = read(json!({"uri": "ui://a", "mimeType": MIME_TYPE,
            "blob": base64::engine::general_purpose::STANDARD.encode([0xff, 0xfe])}));
        assert_eq!(app_resource("ui://a", latin).unwrap_err().key, "errAppNotUtf8");
        let huge = read(json!({"uri": "ui://a", "mimeType": MIME_TYPE,
            "text": "x".repeat(MAX_HTML_BYTES + 1)}));
        assert_eq!(app_resource("ui://a", huge).unwrap_err().key, "errAppTooLarge");
    }
}
