//! Words for a person: a message key of `static/_locales` and its arguments.
//!
//! Core decides *what* to say (an error's kind and its details); the pages word it in the
//! person's language with `chrome.i18n` (`gemipanel_browser::i18n::word`), so the Japanese UI
//! shows no English sentence of ours. `Display` words a text in English from the same
//! `_locales/en/messages.json` (compiled in), for logs, tests and the few places that have no
//! `chrome.i18n`; there is one English sentence per key, in that file.
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
        f.write_str(&self.word(&english))
    }
}

/// `_locales/en/messages.json`, as `chrome.i18n` reads it.
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

const ENGLISH_FILE: &str = include_str!("../../static/_locales/en/messages.json");

fn english_messages() -> &'static HashMap<String, Entry> {
    static MESSAGES: OnceLock<HashMap<String, Entry>> = OnceLock::new();
    // The file is part of the build; a tidy test checks that it reads.
    MESSAGES.get_or_init(|| serde_json::from_str(ENGLISH_FILE).unwrap_or_default())
}

/// A key in English, with its arguments substituted as `chrome.i18n.getMessage` does.
pub fn english(key: &str, args: &[String]) -> Option<String> {
    english_messages().get(key).map(|entry| substitute(entry, args))
}

/// Whether `_locales/en` has `key` (for tests of the keys core uses).
pub fn is_known(key: &str) -> bool {
    english_messages().contains_key(key)
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
