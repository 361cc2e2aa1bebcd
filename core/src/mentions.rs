//! The composer's `@` menu: the resources and resource templates of every enabled server,
//! ranked as the person types (the `/` menu's ranking, [`crate::menu`]), a template's URI made
//! from the values of its variables, and a resource that was read turned into the context part
//! the model gets (text as text, images, audio and PDFs as inline media, other bytes as a note)
//! within a size cap the person is told about.
//!
//! Resources: <https://modelcontextprotocol.io/specification/2025-11-25/server/resources>;
//! URI templates: RFC 6570 (levels 1 to 3, and the prefix modifier of level 4).

use base64::Engine;

use crate::gemini::attachments::{media_type, AttachmentKind};
use crate::mcp::content::Piece;
use crate::mcp::{PromptArgument, ReadResourceResult, Resource, ResourceTemplate};
use crate::menu::{self, MenuEntry};
use crate::page::context::{Body, ContextKind, ContextLabel, ContextPart, InlineMedium};
use crate::settings::ServerId;
use crate::text::Text;

/// The entries shown at most, as in the `/` menu.
pub const MAX_SHOWN: usize = 50;
/// The text of one attached resource, at most; the rest is cut and the person told.
pub const MAX_TEXT_CHARS: usize = 100_000;
/// The media of one attached resource, at most (decoded bytes): well within the 100 MB the
/// API takes inline in one request (`attachments::MAX_INLINE_REQUEST_BYTES`), which the
/// history sent again also counts against.
pub const MAX_MEDIA_BYTES: u64 = 8 * 1024 * 1024;

/// The `@` being typed: where it starts (a byte offset into the text) and what follows it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MentionQuery<'a> {
    pub start: usize,
    pub text: &'a str,
}

/// The mention the text before the caret ends with: an `@` at the start or after whitespace
/// (not inside an address such as `me@example.com`), with no whitespace after it yet.
pub fn query(before_caret: &str) -> Option<MentionQuery<'_>> {
    let start = before_caret.rfind('@')?;
    let text = &before_caret[start + 1..];
    let after_space = before_caret[..start].chars().next_back().is_none_or(char::is_whitespace);
    (after_space && !text.chars().any(char::is_whitespace)).then_some(MentionQuery { start, text })
}

/// The input once a mention was picked: the `@…` typed (from `start` to the caret at `end`)
/// taken out, the rest kept as it was.
pub fn without_query(input: &str, start: usize, end: usize) -> String {
    match (input.get(..start), input.get(end..)) {
        (Some(head), Some(tail)) => format!("{head}{tail}"),
        _ => input.to_owned(),
    }
}

/// One entry of the menu.
#[derive(Clone, Debug, PartialEq)]
pub enum MentionItem {
    Resource { server_id: String, server_name: String, resource: Box<Resource> },
    Template { server_id: String, server_name: String, template: Box<ResourceTemplate> },
}

impl MenuEntry for MentionItem {
    fn name(&self) -> &str {
        match self {
            MentionItem::Resource { resource, .. } => &resource.name,
            MentionItem::Template { template, .. } => &template.name,
        }
    }

    fn label(&self) -> &str {
        let title = match self {
            MentionItem::Resource { resource, .. } => resource.title.as_deref(),
            MentionItem::Template { template, .. } => template.title.as_deref(),
        };
        title.filter(|t| !t.trim().is_empty()).unwrap_or(self.name())
    }

    /// The URI (or template): what a person recognises a resource by after its name.
    fn description(&self) -> &str {
        self.uri()
    }
}

/// Whether a listed resource is offered in the `@` menu: not an MCP App's page (`ui://`, the
/// app MIME type), which is the app's code for its frame, not something to read.
pub fn offered(resource: &Resource) -> bool {
    let app_page = resource.uri.starts_with("ui://")
        || resource.mime_type.as_deref().is_some_and(|m| {
            m.split(';').next().is_some_and(|e| e.trim().eq_ignore_ascii_case("text/html"))
                && m.contains("profile=mcp-app")
        });
    !app_page
}

impl MentionItem {
    pub fn server_id(&self) -> &str {
        match self {
            MentionItem::Resource { server_id, .. } | MentionItem::Template { server_id, .. } => {
                server_id
            }
        }
    }

    pub fn server_name(&self) -> &str {
        match self {
            MentionItem::Resource { server_name, .. }
            | MentionItem::Template { server_name, .. } => server_name,
        }
    }

    /// The resource's URI, or the template's.
    pub fn uri(&self) -> &str {
        match self {
            MentionItem::Resource { resource, .. } => &resource.uri,
            MentionItem::Template { template, .. } => &template.uri_template,
        }
    }

    pub fn icon(&self) -> MediaIcon {
        match self {
            MentionItem::Resource { resource, .. } => icon(resource.mime_type.as_deref()),
            MentionItem::Template { .. } => MediaIcon::Template,
        }
    }
}

/// The entries matching `query`, best first.
pub fn ranked<'a>(items: &'a [MentionItem], query: &str) -> Vec<&'a MentionItem> {
    menu::ranked(items, query, MAX_SHOWN)
}

/// What a menu row shows before a resource's name.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MediaIcon {
    Text,
    Data,
    Image,
    Audio,
    Video,
    Pdf,
    Other,
    /// A template: a resource yet to be made.
    Template,
}

/// The icon of a MIME type; `Other` when the server names none.
pub fn icon(mime: Option<&str>) -> MediaIcon {
    let Some(mime) = mime else { return MediaIcon::Other };
    let essence = mime.split(';').next().unwrap_or("").trim().to_ascii_lowercase();
    match essence.split_once('/') {
        Some(("image", _)) => MediaIcon::Image,
        Some(("audio", _)) => MediaIcon::Audio,
        Some(("video", _)) => MediaIcon::Video,
        Some(("application", "pdf")) => MediaIcon::Pdf,
        Some(("application", sub))
            if ["json", "xml", "yaml", "x-yaml", "toml"].contains(&sub)
                || sub.ends_with("+json")
                || sub.ends_with("+xml") =>
        {
            MediaIcon::Data
        }
        Some(("text", _)) => MediaIcon::Text,
        _ => MediaIcon::Other,
    }
}

/// The variables of a URI template, in order, each once (`{+path}`, `{?q,lang}`, `{id:3}`).
pub fn variables(template: &str) -> Vec<String> {
    let mut names: Vec<String> = Vec::new();
    for expression in expressions(template) {
        for (name, _, _) in variable_list(expression) {
            if !names.iter().any(|n| n == name) {
                names.push(name.to_owned());
            }
        }
    }
    names
}

/// A template's variables as the fields of the arguments form: each required (a variable left
/// out would make a URI the server never listed).
pub fn variable_fields(template: &ResourceTemplate) -> Vec<PromptArgument> {
    variables(&template.uri_template)
        .into_iter()
        .map(|name| PromptArgument {
            name,
            title: None,
            description: None,
            required: true,
            extra: Default::default(),
        })
        .collect()
}

/// The URI a template makes with `value` of each variable (`None`: undefined, left out).
pub fn expand<'v>(template: &str, value: impl Fn(&str) -> Option<&'v str>) -> String {
    let mut out = String::new();
    let mut rest = template;
    while let Some(open) = rest.find('{') {
        out.push_str(&rest[..open]);
        rest = &rest[open..];
        // An expression never closed is kept as it was written.
        let Some(close) = rest.find('}') else { break };
        out.push_str(&expand_expression(&rest[1..close], &value));
        rest = &rest[close + 1..];
    }
    out.push_str(rest);
    out
}

fn expressions(template: &str) -> impl Iterator<Item = &str> {
    template.split('{').skip(1).filter_map(|s| s.split_once('}').map(|(e, _)| e))
}

/// `(name, prefix length, explode)` of each variable of an expression without its operator.
fn variable_list(expression: &str) -> impl Iterator<Item = (&str, Option<usize>, bool)> {
    let list = expression.strip_prefix(['+', '#', '.', '/', ';', '?', '&']).unwrap_or(expression);
    list.split(',').filter(|v| !v.is_empty()).map(|spec| {
        let (spec, explode) = spec.strip_suffix('*').map_or((spec, false), |s| (s, true));
        match spec.split_once(':') {
            Some((name, max)) => (name, max.parse().ok(), explode),
            None => (spec, None, explode),
        }
    })
}

fn expand_expression<'v>(expression: &str, value: &impl Fn(&str) -> Option<&'v str>) -> String {
    // RFC 6570 §3.2.1, the table of each operator's behaviour.
    let (first, separator, named, if_empty, reserved) = match expression.chars().next() {
        Some('+') => ("", ",", false, "", true),
        Some('#') => ("#", ",", false, "", true),
        Some('.') => (".", ".", false, "", false),
        Some('/') => ("/", "/", false, "", false),
        Some(';') => (";", ";", true, "", false),
        Some('?') => ("?", "&", true, "=", false),
        Some('&') => ("&", "&", true, "=", false),
        _ => ("", ",", false, "", false),
    };
    let mut parts = Vec::new();
    for (name, prefix, _) in variable_list(expression) {
        let Some(text) = value(name) else { continue };
        let text: String = match prefix {
            Some(max) => text.chars().take(max).collect(),
            None => text.to_owned(),
        };
        let encoded = encode(&text, reserved);
        parts.push(match (named, text.is_empty()) {
            (true, true) => format!("{name}{if_empty}"),
            (true, false) => format!("{name}={encoded}"),
            (false, _) => encoded,
        });
    }
    if parts.is_empty() {
        String::new()
    } else {
        format!("{first}{}", parts.join(separator))
    }
}

/// Percent-encoding of RFC 6570 §3.2.1: unreserved characters as they are, and the reserved
/// ones too for `+` and `#` (whose values may carry a path).
fn encode(text: &str, reserved: bool) -> String {
    let mut out = String::new();
    for c in text.chars() {
        let keep = c.is_ascii_alphanumeric()
            || "-._~".contains(c)
            || (reserved && ":/?#[]@!$&'()*+,;=%".contains(c));
        if keep {
            out.push(c);
        } else {
            let mut bytes = [0; 4];
            for b in c.encode_utf8(&mut bytes).bytes() {
                out.push_str(&format!("%{b:02X}"));
            }
        }
    }
    out
}

/// A resource read for the next message.
#[derive(Clone, Debug, PartialEq)]
pub struct Attached {
    pub part: ContextPart,
    /// What the person is told under its chip: what was cut or left out, and why.
    pub notices: Vec<Text>,
}

/// The context part of a resource read from the server `server_id` named `server_name`: its
/// text quoted, its images, audio and PDFs as inline media, other bytes named in a note, within
/// [`MAX_TEXT_CHARS`] and [`MAX_MEDIA_BYTES`]. Its label names the server, whose updates of
/// the resource the chat follows (`resource_updates`).
pub fn attach(
    server_id: &ServerId,
    server_name: &str,
    name: &str,
    uri: &str,
    read: &ReadResourceResult,
) -> Attached {
    let mut texts: Vec<String> = Vec::new();
    let mut media: Vec<InlineMedium> = Vec::new();
    let mut notes = vec![format!("From the MCP server “{server_name}”.")];
    let mut notices = Vec::new();
    let (mut chars, mut media_bytes) = (0usize, 0u64);
    let pieces = read.pieces();
    let several = read.contents.len() > 1;
    let mut add_text = |text: &str, texts: &mut Vec<String>, notices: &mut Vec<Text>| {
        let left = MAX_TEXT_CHARS.saturating_sub(chars);
        let count = text.chars().count();
        if count <= left {
            chars += count;
            texts.push(text.to_owned());
            return None;
        }
        texts.push(text.chars().take(left).collect());
        chars = MAX_TEXT_CHARS;
        notices.push(Text::new("panelResourceCut").arg(name).arg(MAX_TEXT_CHARS.to_string()));
        Some(format!("The text was cut at {MAX_TEXT_CHARS} characters; the rest was not sent."))
    };
    for piece in &pieces {
        match piece {
            // One content needs no heading: the label names the resource.
            Piece::Note(note) if !several && note.key == "resultResource" => {}
            Piece::Note(note) => texts.push(note.to_string()),
            Piece::Said(text) => notes.extend(add_text(text, &mut texts, &mut notices)),
            Piece::Medium { mime, data } => {
                let bytes = data.len() as u64 / 4 * 3;
                match media_type(mime, uri) {
                    Some((AttachmentKind::Text, _)) => {
                        let decoded = base64::engine::general_purpose::STANDARD
                            .decode(data.trim())
                            .ok()
                            .and_then(|b| String::from_utf8(b).ok());
                        match decoded {
                            Some(text) => notes.extend(add_text(&text, &mut texts, &mut notices)),
                            None => {
                                notes.push(format!(
                                    "Its bytes ({mime}) are not valid text and were not sent."
                                ));
                                notices.push(Text::new("panelResourceBinary").arg(name).arg(*mime));
                            }
                        }
                    }
                    Some((_, sent_as)) if media_bytes + bytes <= MAX_MEDIA_BYTES => {
                        media_bytes += bytes;
                        media
                            .push(InlineMedium { mime_type: sent_as.into(), data: (*data).into() });
                    }
                    Some(_) => {
                        let (size, limit) = (megabytes(bytes), megabytes(MAX_MEDIA_BYTES));
                        notes.push(format!(
                            "Its {mime} content ({size}) was not sent: over the {limit} limit."
                        ));
                        notices.push(
                            Text::new("panelResourceTooLarge").arg(name).arg(size).arg(limit),
                        );
                    }
                    None => {
                        notes.push(format!(
                            "Its content is binary ({mime}, {}), which the model cannot read; it was not sent.",
                            megabytes(bytes)
                        ));
                        notices.push(Text::new("panelResourceBinary").arg(name).arg(*mime));
                    }
                }
            }
        }
    }
    if pieces.is_empty() {
        notices.push(Text::new("panelResourceEmpty").arg(name));
    }
    let label = ContextLabel {
        kind: ContextKind::Resource,
        title: name.to_owned(),
        url: uri.to_owned(),
        server_id: Some(server_id.clone()),
    };
    let body = Body::Mixed { text: texts.join("\n\n"), media };
    Attached { part: ContextPart { label, body, page_url: None, notes }, notices }
}

fn megabytes(bytes: u64) -> String {
    if bytes < 1024 * 1024 {
        format!("{} KB", bytes.div_ceil(1024))
    } else {
        format!("{:.1} MB", bytes as f64 / (1024.0 * 1024.0))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn sid() -> ServerId {
        ServerId::parse("srv_s").unwrap()
    }

    fn read(value: serde_json::Value) -> ReadResourceResult {
        serde_json::from_value(value).unwrap()
    }

    #[test]
    fn the_menu_opens_on_an_at_sign_that_starts_a_word() {
        assert_eq!(query("@"), Some(MentionQuery { start: 0, text: "" }));
        assert_eq!(query("Summarize @rea"), Some(MentionQuery { start: 10, text: "rea" }));
        assert_eq!(query("mail me@example.com"), None);
        assert_eq!(query("@readme and"), None);
        assert_eq!(query("日本語 @東京"), Some(MentionQuery { start: 10, text: "東京" }));
        assert_eq!(query("no mention"), None);
        assert_eq!(without_query("Summarize @rea please", 10, 14), "Summarize  please");
        assert_eq!(without_query("x", 5, 9), "x", "offsets out of the text change nothing");
    }

    #[test]
    fn resources_and_templates_rank_by_name_title_and_uri() {
        let resource = |name: &str, uri: &str| MentionItem::Resource {
            server_id: "s".into(),
            server_name: "S".into(),
            resource: serde_json::from_value(json!({"name": name, "uri": uri})).unwrap(),
        };
        let template = MentionItem::Template {
            server_id: "s".into(),
            server_name: "S".into(),
            template: serde_json::from_value(
                json!({"name": "Notes", "title": "Topic notes", "uriTemplate": "test://notes/{topic}"}),
            )
            .unwrap(),
        };
        let items = vec![
            resource("Resource 2", "test://static/resource/2"),
            template,
            resource("readme", "memo://notes"),
        ];
        let names: Vec<&str> = ranked(&items, "not").iter().map(|i| i.name()).collect();
        assert_eq!(names, ["Notes", "readme"]);
        let names: Vec<&str> = ranked(&items, "topic").iter().map(|i| i.name()).collect();
        assert_eq!(names, ["Notes"], "the title is matched");
        assert_eq!(items[1].icon(), MediaIcon::Template);
    }

    #[test]
    fn an_apps_page_is_not_offered_to_attach() {
        let resource = |uri: &str, mime: &str| -> Resource {
            serde_json::from_value(json!({"uri": uri, "name": "n", "mimeType": mime})).unwrap()
        };
        assert!(!offered(&resource("ui://demo/picker.html", "text/html;profile=mcp-app")));
        assert!(!offered(&resource("https://a.example/app", "text/html; profile=mcp-app")));
        assert!(offered(&resource("file:///notes.md", "text/markdown")));
        assert!(offered(&resource("https://a.example/page", "text/html")));
    }

    #[test]
    fn icons_follow_the_mime_type() {
        assert_eq!(icon(Some("image/png")), MediaIcon::Image);
        assert_eq!(icon(Some("Audio/WAV; rate=8000")), MediaIcon::Audio);
        assert_eq!(icon(Some("video/mp4")), MediaIcon::Video);
        assert_eq!(icon(Some("application/pdf")), MediaIcon::Pdf);
        assert_eq!(icon(Some("application/ld+json")), MediaIcon::Data);
        assert_eq!(icon(Some("text/markdown")), MediaIcon::Text);
        assert_eq!(icon(Some("application/zip")), MediaIcon::Other);
        assert_eq!(icon(Some("nonsense")), MediaIcon::Other);
        assert_eq!(icon(None), MediaIcon::Other);
    }

    #[test]
    fn templates_expand_as_rfc_6570_shows() {
        // RFC 6570 §1.2's examples, level 1 to 3, with var = "value", hello = "Hello World!",
        // path = "/foo/bar", x = "1024", y = "768", empty = "".
        let value = |name: &str| match name {
            "var" => Some("value"),
            "hello" => Some("Hello World!"),
            "path" => Some("/foo/bar"),
            "x" => Some("1024"),
            "y" => Some("768"),
            "empty" => Some(""),
            _ => None,
        };
        let cases = [
            ("{var}", "value"),
            ("{hello}", "Hello%20World%21"),
            ("{+var}", "value"),
            ("{+hello}", "Hello%20World!"),
            ("{+path}/here", "/foo/bar/here"),
            ("here?ref={+path}", "here?ref=/foo/bar"),
            ("X{#var}", "X#value"),
            ("X{#hello}", "X#Hello%20World!"),
            ("map?{x,y}", "map?1024,768"),
            ("{x,hello,y}", "1024,Hello%20World%21,768"),
            ("{+x,hello,y}", "1024,Hello%20World!,768"),
            ("{+path,x}/here", "/foo/bar,1024/here"),
            ("{#x,hello,y}", "#1024,Hello%20World!,768"),
            ("X{.var}", "X.value"),
            ("X{.x,y}", "X.1024.768"),
            ("{/var}", "/value"),
            ("{/var,x}/here", "/value/1024/here"),
            ("{;x,y}", ";x=1024;y=768"),
            ("{;x,y,empty}", ";x=1024;y=768;empty"),
            ("{?x,y}", "?x=1024&y=768"),
            ("{?x,y,empty}", "?x=1024&y=768&empty="),
            ("?fixed=yes{&x}", "?fixed=yes&x=1024"),
            ("{&x,y,empty}", "&x=1024&y=768&empty="),
            ("{var:3}", "val"),
            ("{?undef}", ""),
            ("test://notes/{topic}", "test://notes/"),
            ("broken{var", "broken{var"),
        ];
        for (template, expected) in cases {
            assert_eq!(expand(template, value), expected, "{template}");
        }
        assert_eq!(
            expand("test://notes/{topic}", |_| Some("tea ceremony")),
            "test://notes/tea%20ceremony"
        );
        assert_eq!(variables("file:///{+path}{?q,lang}{&q}{id:3}"), ["path", "q", "lang", "id"]);
        assert!(variables("test://static").is_empty());
    }

    #[test]
    fn text_is_quoted_with_the_server_named_and_the_uri() {
        let attached = attach(
            &sid(),
            "Everything",
            "Resource 1",
            "test://static/resource/1",
            &read(
                json!({"contents": [{"uri": "test://static/resource/1", "mimeType": "text/plain", "text": "Resource 1: plain text"}]}),
            ),
        );
        assert!(attached.notices.is_empty());
        let parts = attached.part.to_parts(&[]);
        let [part] = parts.as_slice() else { panic!("{parts:?}") };
        let text = part.text.as_deref().unwrap();
        assert!(text.starts_with("[Resource attached by the person"), "{text}");
        assert!(text.contains("Title: Resource 1\nURL: test://static/resource/1\n"), "{text}");
        assert!(text.contains("Note: From the MCP server “Everything”."), "{text}");
        assert!(text.contains("\nResource 1: plain text\n>>>content"), "{text}");
        assert!(!text.contains("[resource test://"), "one content needs no heading: {text}");
    }

    #[test]
    fn images_audio_and_pdfs_go_inline_and_other_bytes_are_named() {
        let attached = attach(
            &sid(),
            "S",
            "Mixed",
            "test://mixed",
            &read(json!({"contents": [
                {"uri": "test://mixed/a.png", "mimeType": "image/png", "blob": "iVBORw0KGgo="},
                {"uri": "test://mixed/b.wav", "mimeType": "audio/x-wav", "blob": "UklGRg=="},
                {"uri": "test://mixed/c.pdf", "mimeType": "application/pdf", "blob": "JVBERi0="},
                {"uri": "test://mixed/d.zip", "mimeType": "application/zip", "blob": "UEsDBA=="},
                {"uri": "test://mixed/e.json", "mimeType": "application/json", "blob": "eyJhIjogMX0="},
            ]})),
        );
        let Body::Mixed { text, media } = &attached.part.body else { panic!() };
        let types: Vec<&str> = media.iter().map(|m| m.mime_type.as_str()).collect();
        assert_eq!(types, ["image/png", "audio/wav", "application/pdf"]);
        assert!(text.contains("{\"a\": 1}"), "a text blob is decoded: {text}");
        assert!(
            text.contains("[resource test://mixed/a.png]"),
            "several contents are each named: {text}"
        );
        assert!(attached.part.notes.iter().any(|n| n.contains("binary (application/zip")));
        assert_eq!(
            attached.notices,
            [Text::new("panelResourceBinary").arg("Mixed").arg("application/zip")]
        );
        let parts = attached.part.to_parts(&[]);
        assert_eq!(parts.len(), 4);
        assert_eq!(parts[1].inline_data.as_ref().unwrap().data, "iVBORw0KGgo=");
    }

    #[test]
    fn what_passes_the_caps_is_cut_or_left_out_and_the_person_told() {
        let long = "x".repeat(MAX_TEXT_CHARS + 10);
        let attached = attach(
            &sid(),
            "S",
            "Long",
            "test://long",
            &read(json!({"contents": [{"uri": "test://long", "text": long}]})),
        );
        let Body::Mixed { text, .. } = &attached.part.body else { panic!() };
        assert_eq!(text.chars().count(), MAX_TEXT_CHARS);
        assert_eq!(
            attached.notices,
            [Text::new("panelResourceCut").arg("Long").arg(MAX_TEXT_CHARS.to_string())]
        );
        assert!(attached.part.notes.iter().any(|n| n.contains("cut at 100000")));

        let big = "A".repeat((MAX_MEDIA_BYTES as usize / 3 + 1) * 4);
        let attached = attach(
            &sid(),
            "S",
            "Big",
            "test://big.png",
            &read(
                json!({"contents": [{"uri": "test://big.png", "mimeType": "image/png", "blob": big}]}),
            ),
        );
        let Body::Mixed { media, .. } = &attached.part.body else { panic!() };
        assert!(media.is_empty());
        assert_eq!(attached.notices[0].key, "panelResourceTooLarge");
        assert!(
            attached.part.notes.iter().any(|n| n.contains("over the 8.0 MB limit")),
            "{:?}",
            attached.part.notes
        );

        let empty = attach(&sid(), "S", "Nothing", "test://none", &read(json!({"contents": []})));
        assert_eq!(empty.notices, [Text::new("panelResourceEmpty").arg("Nothing")]);
    }
}
