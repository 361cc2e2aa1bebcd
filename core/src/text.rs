//! Words for a person: a message key of `static/_locales` and its arguments.
//!
//! Core decides *what* to say (an error's kind and its details); the pages word it in the
//! person's language with `chrome.i18n` (`gemipanel_browser::chrome::word`), so the Japanese UI
//! shows no English sentence of ours. `Display` words a text with the lookup the host installed
//! ([`set_lookup`]); natively (tests, the bridge, xtask) it falls back to English from the same
//! `_locales/en/messages.json`, compiled in. The wasm modules leave that file out (it is most of
//! 80 KB): each installs `chrome.i18n` at its start, which reads the file in the person's
//! language and falls back to `en` (the manifest's `default_locale`) by itself.
//!
//! An argument is plain text (a server's name, a number) or a text of its own (the cause of an
//! error), worded first.

use std::borrow::Cow;
use std::collections::HashMap;
use std::fmt;
use std::sync::OnceLock;

use serde::{Deserialize, Serialize};

/// A message key and its arguments (`$1`…`$9` of the message's placeholders).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Text {
    pub key: Cow<'static, str>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub args: Vec<Arg>,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum Arg {
    Plain(String),
    Text(Text),
}

impl Text {
    pub fn new(key: &'static str) -> Self {
        Text { key: Cow::Borrowed(key), args: Vec::new() }
    }

    /// Adds a plain argument (a name, a number, serde's own words).
    pub fn arg(mut self, arg: impl fmt::Display) -> Self {
        self.args.push(Arg::Plain(arg.to_string()));
        self
    }

    /// Adds an argument that is worded itself.
    pub fn with(mut self, text: Text) -> Self {
        self.args.push(Arg::Text(text));
        self
    }

    /// Words the text with `lookup` (a key to its message, `None` when unknown), which is how
    /// both `Display` (English) and the pages (`chrome.i18n`) use it.
    pub fn word(&self, lookup: &dyn Fn(&str, &[String]) -> Option<String>) -> String {
        let args: Vec<String> = self
            .args
            .iter()
            .map(|arg| match arg {
                Arg::Plain(text) => text.clone(),
                Arg::Text(text) => text.word(lookup),
            })
            .collect();
        lookup(&self.key, &args).unwrap_or_else(|| {
            // An unknown key still says something useful: the key and what came with it.
            if args.is_empty() {
                self.key.to_string()
            } else {
                format!("{} ({})", self.key, args.join(", "))
            }
        })
    }
}

impl fmt::Display for Text {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.word(&display_lookup))
    }
}

/// A key to its worded message with the arguments substituted, `None` when unknown.
pub type Lookup = fn(&str, &[String]) -> Option<String>;

static LOOKUP: OnceLock<Lookup> = OnceLock::new();

/// Installs how `Display` words texts in this module (once; a later call changes nothing).
pub fn set_lookup(lookup: Lookup) {
    let _ = LOOKUP.set(lookup);
}

fn display_lookup(key: &str, args: &[String]) -> Option<String> {
    match LOOKUP.get() {
        Some(lookup) => lookup(key, args),
        None => fallback(key, args),
    }
}

#[cfg(not(target_arch = "wasm32"))]
fn fallback(key: &str, args: &[String]) -> Option<String> {
    english(key, args)
}

/// Without a lookup a wasm module says the key and its arguments (`Text::word`).
#[cfg(target_arch = "wasm32")]
fn fallback(_key: &str, _args: &[String]) -> Option<String> {
    None
}

/// One locale's `messages.json`, as `chrome.i18n` reads it.
pub struct Messages(HashMap<String, Entry>);

impl Messages {
    pub fn parse(file: &str) -> Result<Messages, serde_json::Error> {
        serde_json::from_str(file).map(Messages)
    }

    /// `key` with its arguments substituted as `chrome.i18n.getMessage` does.
    pub fn word(&self, key: &str, args: &[String]) -> Option<String> {
        self.0.get(key).map(|entry| substitute(entry, args))
    }

    pub fn contains(&self, key: &str) -> bool {
        self.0.contains_key(key)
    }
}

#[derive(Deserialize)]
struct Entry {
    message: String,
    #[serde(default)]
    placeholders: HashMap<String, Placeholder>,
}

#[derive(Deserialize)]
struct Placeholder {
    content: String,
}

#[cfg(not(target_arch = "wasm32"))]
fn english_messages() -> &'static Messages {
    const ENGLISH_FILE: &str = include_str!("../../static/_locales/en/messages.json");
    static MESSAGES: OnceLock<Messages> = OnceLock::new();
    // The file is part of the build; a tidy test checks that it reads.
    MESSAGES
        .get_or_init(|| Messages::parse(ENGLISH_FILE).unwrap_or_else(|_| Messages(HashMap::new())))
}

/// A key in English, with its arguments substituted as `chrome.i18n.getMessage` does.
#[cfg(not(target_arch = "wasm32"))]
pub fn english(key: &str, args: &[String]) -> Option<String> {
    english_messages().word(key, args)
}

/// Whether `_locales/en` has `key` (for tests of the keys core uses).
#[cfg(not(target_arch = "wasm32"))]
pub fn is_known(key: &str) -> bool {
    english_messages().contains(key)
}

/// `$NAME$` becomes its placeholder's content, in which `$1`…`$9` are the arguments; `$$` is a
/// dollar sign.
fn substitute(entry: &Entry, args: &[String]) -> String {
    let mut out = String::with_capacity(entry.message.len());
    let mut rest = entry.message.as_str();
    while let Some(at) = rest.find('$') {
        out.push_str(&rest[..at]);
        let after = &rest[at + 1..];
        if let Some(tail) = after.strip_prefix('$') {
            out.push('$');
            rest = tail;
            continue;
        }
        match after.find('$') {
            Some(end) if end > 0 => {
                let name = after[..end].to_ascii_lowercase();
                match entry.placeholders.get(&name) {
                    Some(placeholder) => out.push_str(&arguments(&placeholder.content, args)),
                    None => out.push_str(&rest[at..at + end + 2]),
                }
                rest = &after[end + 1..];
            }
            _ => {
                out.push('$');
                rest = after;
            }
        }
    }
    out.push_str(rest);
    out
}

/// A placeholder's content with `$1`…`$9` replaced by the arguments.
fn arguments(content: &str, args: &[String]) -> String {
    let mut out = String::new();
    let mut chars = content.chars().peekable();
    while let Some(c) = chars.next() {
        match (c, chars.peek().and_then(|d| d.to_digit(10))) {
            ('$', Some(n)) if n >= 1 => {
                chars.next();
                out.push_str(args.get(n as usize - 1).map_or("", String::as_str));
            }
            _ => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn english_comes_from_the_locale_file_with_its_placeholders() {
        let text = Text::new("popupTestFailed").arg("no route");
        assert_eq!(text.to_string(), "Connection failed: no route");
        // Nested texts are worded first.
        let nested = Text::new("popupTestFailed").with(Text::new("popupStatusIdle"));
        assert_eq!(
            nested.to_string(),
            format!("Connection failed: {}", Text::new("popupStatusIdle"))
        );
        // An unknown key still shows what it is about.
        assert_eq!(Text::new("noSuchKey").arg(3).to_string(), "noSuchKey (3)");
    }

    #[test]
    fn substitution_follows_chrome_i18n() {
        let entry: Entry = serde_json::from_str(
            r#"{"message": "$A$ costs $$5, $B$ and $UNKNOWN$ $", "placeholders": {"a": {"content": "$1"}, "b": {"content": "[$2]"}}}"#,
        )
        .unwrap();
        let args = ["x".to_owned(), "y".to_owned()];
        assert_eq!(substitute(&entry, &args), "x costs $5, [y] and $UNKNOWN$ $");
        assert_eq!(substitute(&entry, &[]), " costs $5, [] and $UNKNOWN$ $");
    }

    #[test]
    fn texts_travel_as_json() {
        let text = Text::new("popupTestFailed").with(Text::new("a").arg("b"));
        let wire = serde_json::to_value(&text).unwrap();
        assert_eq!(
            wire,
            serde_json::json!({"key": "popupTestFailed", "args": [{"key": "a", "args": ["b"]}]})
        );
        assert_eq!(serde_json::from_value::<Text>(wire).unwrap(), text);
    }
}
