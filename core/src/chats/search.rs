//! Search over saved chats, titles and text, for the history list.
//!
//! Every word of the query must occur (case-insensitively) in the chat's title or text. The
//! text is what the person saw: their messages, the replies, tool names and results. A query
//! that extends the previous one (the person typed one more letter) searches only the chats
//! the previous one found, so typing stays fast over a thousand long chats.

use super::saved::{Entry, SavedChat};

/// What one chat is searched by.
#[derive(Debug, Clone, PartialEq)]
pub struct Searchable {
    pub id: String,
    /// The title and the text, folded (see [`fold`]), title first.
    folded: String,
    /// The same, as written: snippets are cut from it (byte offsets agree with `folded`).
    original: String,
}

/// The text a chat is found by, as written.
pub fn chat_text(chat: &SavedChat) -> String {
    let mut text = String::new();
    for entry in &chat.entries {
        match entry {
            Entry::User { text: words, .. } => text.push_str(words),
            // As the person read it: a snippet shows no Markdown marks.
            Entry::Model(reply) => text.push_str(&reply.doc.plain_text()),
            Entry::Tool(card) => {
                text.push_str(&card.tool);
                text.push(' ');
                text.push_str(&card.server_name);
                if let Some(result) = &card.result {
                    text.push(' ');
                    text.push_str(result);
                }
            }
            Entry::Summary { text: words, .. } => text.push_str(words),
            _ => continue,
        }
        text.push('\n');
    }
    text
}

impl Searchable {
    pub fn new(id: &str, title: &str, text: &str) -> Self {
        let original = format!("{title}\n{text}");
        Searchable { id: id.to_owned(), folded: fold(&original), original }
    }

    pub fn of(chat: &SavedChat) -> Self {
        Self::new(&chat.id, &chat.title, &chat_text(chat))
    }

    fn matches(&self, words: &[String]) -> bool {
        words.iter().all(|w| self.folded.contains(w.as_str()))
    }

    /// Some words around the first word of the query found in the text (not the title).
    fn snippet(&self, words: &[String]) -> Option<String> {
        let body = self.original.find('\n').map_or(self.original.len(), |i| i + 1);
        let at = words.iter().filter_map(|w| self.folded[body..].find(w.as_str())).min()? + body;
        let mut start = floor_char(&self.original, at.saturating_sub(30).max(body));
        // From a word's start, not the middle of one.
        if start > body {
            if let Some(space) = self.original[start..at].find(char::is_whitespace) {
                start += space;
            }
        }
        let end = floor_char(&self.original, (at + 90).min(self.original.len()));
        let piece: String =
            self.original[start..end].split_whitespace().collect::<Vec<_>>().join(" ");
        let lead = if start > body { "…" } else { "" };
        let tail = if end < self.original.len() { "…" } else { "" };
        Some(format!("{lead}{piece}{tail}"))
    }
}

fn floor_char(text: &str, mut at: usize) -> usize {
    while !text.is_char_boundary(at) {
        at -= 1;
    }
    at
}

/// Lower case, char by char, where that keeps the char's length in UTF-8 (nearly always):
/// offsets in the folded text are then offsets in the original.
pub fn fold(text: &str) -> String {
    text.chars()
        .map(|c| {
            let mut lower = c.to_lowercase();
            match (lower.next(), lower.next()) {
                (Some(l), None) if l.len_utf8() == c.len_utf8() => l,
                _ => c,
            }
        })
        .collect()
}

/// One chat found: its id and, when the words are in its text, some words around them.
#[derive(Debug, Clone, PartialEq)]
pub struct Hit {
    pub id: String,
    pub snippet: Option<String>,
}

/// The searchable chats (in the history list's order) and the last search, to narrow it.
#[derive(Debug, Clone, Default)]
pub struct ChatSearch {
    chats: Vec<Searchable>,
    last: Option<(Vec<String>, Vec<usize>)>,
}

impl ChatSearch {
    pub fn new(chats: Vec<Searchable>) -> Self {
        ChatSearch { chats, last: None }
    }

    pub fn len(&self) -> usize {
        self.chats.len()
    }

    pub fn is_empty(&self) -> bool {
        self.chats.is_empty()
    }

    /// The chats that have every word of `query`, in the list's order; every chat for a blank
    /// query (without snippets). Only the first `snippets` hits get a snippet (the rows shown):
    /// cutting one for each of a thousand hits per keystroke is work nobody sees.
    pub fn search(&mut self, query: &str, snippets: usize) -> Vec<Hit> {
        let words: Vec<String> = fold(query).split_whitespace().map(str::to_owned).collect();
        if words.is_empty() {
            self.last = None;
            return self.chats.iter().map(|c| Hit { id: c.id.clone(), snippet: None }).collect();
        }
        // Each word of the new query contains one of the old: the new hits are among the old.
        let narrows =
            |old: &[String]| old.iter().all(|o| words.iter().any(|w| w.contains(o.as_str())));
        let found: Vec<usize> = match &self.last {
            Some((old, hits)) if narrows(old) => {
                hits.iter().copied().filter(|&i| self.chats[i].matches(&words)).collect()
            }
            _ => (0..self.chats.len()).filter(|&i| self.chats[i].matches(&words)).collect(),
        };
        let hits = found
            .iter()
            .enumerate()
            .map(|(n, &i)| Hit {
                id: self.chats[i].id.clone(),
                snippet: if n < snippets { self.chats[i].snippet(&words) } else { None },
            })
            .collect();
        self.last = Some((words, found));
        hits
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::chats::doc::MdDoc;

    fn search() -> ChatSearch {
        ChatSearch::new(vec![
            Searchable::new(
                "a",
                "Trip to Kyoto",
                "Which temples open early?\nKinkaku-ji opens at 9.",
            ),
            Searchable::new("b", "Rust lifetimes", "Why does the borrow checker refuse this?"),
            Searchable::new("c", "Untitled", "Weather in KYOTO tomorrow\nforecast Weather sunny"),
            Searchable::new("d", "日本語のチャット", "京都の天気は晴れです。"),
        ])
    }

    #[test]
    fn a_reply_is_found_and_shown_by_its_words_not_its_markdown() {
        let reply = "## Answer 7\n\nthe **first** part, with a [link](https://example.com/7).\n\n\
                     - one point\n\n```js\nconst answer = 42;\n```\n";
        assert_eq!(
            MdDoc::from_text(reply).plain_text(),
            "Answer 7\nthe first part, with a link.\none point\nconst answer = 42;"
        );
        let chat: SavedChat = serde_json::from_value(serde_json::json!({
            "id": "c1", "title": "Untitled", "created_ms": 0, "updated_ms": 0, "history": [],
            "entries": [{"user": {"text": "tell me"}}, {"model": {"doc": reply}}],
        }))
        .unwrap();
        let mut search = ChatSearch::new(vec![Searchable::of(&chat)]);
        let hits = search.search("first part", 10);
        assert_eq!(
            hits[0].snippet.as_deref(),
            Some("tell me Answer 7 the first part, with a link. one point const answer = 42;")
        );
        assert!(search.search("example.com", 10).is_empty(), "a link's address was not read");
        assert!(search.search("**first**", 10).is_empty());
    }

    fn ids(hits: &[Hit]) -> Vec<&str> {
        hits.iter().map(|h| h.id.as_str()).collect()
    }

    #[test]
    fn every_word_must_be_in_the_title_or_the_text_whatever_the_case() {
        let mut s = search();
        assert_eq!(ids(&s.search("kyoto", 100)), ["a", "c"]);
        assert_eq!(ids(&s.search("Kyoto weather", 100)), ["c"]);
        assert_eq!(ids(&s.search("TRIP temples", 100)), ["a"]);
        assert_eq!(ids(&s.search("京都", 100)), ["d"]);
        assert_eq!(ids(&s.search("kyoto rust", 100)), Vec::<&str>::new());
        assert_eq!(ids(&s.search("  ", 100)), ["a", "b", "c", "d"]);
    }

    #[test]
    fn a_snippet_shows_the_words_in_the_text_but_not_for_a_title() {
        let mut s = search();
        let hits = s.search("borrow", 100);
        assert_eq!(hits[0].snippet.as_deref(), Some("Why does the borrow checker refuse this?"));
        assert_eq!(s.search("lifetimes", 100)[0].snippet, None);
        // Only the first hits shown get one.
        let hits = s.search("e", 1);
        assert!(hits[0].snippet.is_some() && hits[1].snippet.is_none(), "{hits:?}");
        let long =
            Searchable::new("x", "t", &format!("{} needle {}", "é".repeat(100), "ü".repeat(100)));
        let mut s = ChatSearch::new(vec![long]);
        let snippet = s.search("NEEDLE", 100)[0].snippet.clone().unwrap();
        assert!(
            snippet.starts_with('…') && snippet.ends_with('…') && snippet.contains("needle"),
            "{snippet}"
        );
        let text = "Some words before the place where the needle is.";
        let mut s = ChatSearch::new(vec![Searchable::new("x", "t", text)]);
        let snippet = s.search("needle", 1)[0].snippet.clone();
        assert_eq!(snippet.as_deref(), Some("…before the place where the needle is."));
    }

    #[test]
    fn typing_on_narrows_the_last_hits_and_anything_else_starts_again() {
        let mut s = search();
        assert_eq!(ids(&s.search("k", 100)), ["a", "b", "c"]);
        assert_eq!(ids(&s.search("ky", 100)), ["a", "c"]);
        assert_eq!(ids(&s.search("kyo", 100)), ["a", "c"]);
        // Backspace, or another word: no longer a narrowing, every chat is searched again.
        assert_eq!(ids(&s.search("r", 100)), ["a", "b", "c"]);
        assert_eq!(ids(&s.search("rust", 100)), ["b"]);
        assert_eq!(ids(&s.search("rus", 100)), ["b"]);
        assert_eq!(ids(&s.search("weather", 100)), ["c"]);
    }

    #[test]
    fn folding_keeps_offsets() {
        for text in ["KELVIN \u{212A} İstanbul ẞ", "ΑΒΓ Ω", "Ǆ"] {
            let folded = fold(text);
            assert_eq!(folded.len(), text.len(), "{text}");
            for (i, _) in text.char_indices() {
                assert!(folded.is_char_boundary(i), "{text} at {i}");
            }
        }
        assert_eq!(fold("ÀÉÎ Straße"), "àéî straße");
    }

    #[test]
    fn a_chat_is_found_by_what_the_person_saw() {
        let chat: SavedChat = serde_json::from_value(serde_json::json!({
            "id": "c", "title": "t", "created_ms": 0, "updated_ms": 0, "history": [],
            "entries": [
                {"user": {"text": "question one"}},
                {"model": {"doc": "answer **two**", "thoughts": "secret musing"}},
                {"tool": {"call_id": "1", "server_id": "s", "server_name": "Weather", "tool": "forecast",
                    "args": "{\"q\": \"argument\"}", "status": "done", "read_only_hint": null,
                    "trusted_server": true, "result": "sunny"}},
                {"notice": {"text": "a notice"}}
            ]
        }))
        .unwrap();
        let text = chat_text(&chat);
        assert_eq!(text, "question one\nanswer two\nforecast Weather sunny\n");
    }

    /// A thousand chats of a few KB each: a first keystroke, and the next ones, stay well
    /// inside a frame natively (the panel's bench measures it in the browser).
    #[test]
    fn a_thousand_chats_are_searched_quickly() {
        let body = "The quick brown fox jumps over the lazy dog. ".repeat(80);
        let chats = (0..1000)
            .map(|i| {
                Searchable::new(&format!("c{i}"), &format!("Chat {i}"), &format!("{body} token{i}"))
            })
            .collect();
        let mut s = ChatSearch::new(chats);
        let start = std::time::Instant::now();
        assert_eq!(s.search("t", 100).len(), 1000);
        assert_eq!(s.search("token99", 100).len(), 11);
        assert_eq!(ids(&s.search("token999", 100)), ["c999"]);
        let took = start.elapsed();
        assert!(took.as_millis() < 2000, "{took:?}");
    }
}
