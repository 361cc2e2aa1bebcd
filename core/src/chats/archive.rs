//! Chats as a JSON file a person can keep and bring back: the saved form itself, in an envelope
//! that names the format and its version.
//!
//! Reading a file is all or nothing: anything it cannot use (not JSON, another format, a newer
//! version, a chat that does not read as a saved chat, too many or too big) is an error that
//! says what, and nothing is imported. A chat whose id is taken (by a saved chat or by an
//! earlier chat of the same file) or is not a plain id gets a new one; nothing saved is ever
//! overwritten. Apps are not brought back: an app's HTML from a file would run as if one of the
//! person's servers had sent it, with that server's tools; the card keeps its call and result.

use std::collections::HashSet;

use serde::{Deserialize, Serialize};

use super::saved::SavedChat;
use crate::text::Text;

/// What the `format` field says.
pub const FORMAT: &str = "gemipanel-chats";
/// The newest version this build writes and reads. Older ones are read as they were.
pub const VERSION: u32 = 1;
/// A file larger than this is refused before it is read (chrome.storage.local holds about
/// 10 MB without `unlimitedStorage`).
pub const MAX_BYTES: usize = 64 * 1024 * 1024;
pub const MAX_CHATS: usize = 10_000;
const MAX_ID: usize = 64;

/// The file: `{"format": "gemipanel-chats", "version": 1, "exported_ms": …, "chats": [...]}`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ChatArchive {
    pub format: String,
    pub version: u32,
    #[serde(default)]
    pub exported_ms: u64,
    pub chats: Vec<SavedChat>,
}

/// The file of `chats`, exported at `now_ms`.
pub fn export(mut chats: Vec<SavedChat>, now_ms: u64) -> String {
    // As they are stored: each app's resource once.
    chats.iter_mut().for_each(SavedChat::tabulate_app_resources);
    let archive =
        ChatArchive { format: FORMAT.into(), version: VERSION, exported_ms: now_ms, chats };
    // Compact and through the writer chats are stored with: a second serializer of the saved
    // form (a pretty printer, another writer) costs the side panel several KB.
    crate::json_pieces::to_string(&archive).unwrap_or_default()
}

/// What reading a file gives: the chats to save, and how many got a new id.
#[derive(Debug, Clone, PartialEq)]
pub struct Imported {
    pub chats: Vec<SavedChat>,
    pub new_ids: usize,
}

/// Reads a file. `taken` is every saved chat's id; `new_id` makes a fresh one.
pub fn import(
    text: &str,
    taken: &HashSet<String>,
    new_id: &mut dyn FnMut() -> String,
) -> Result<Imported, Text> {
    if text.len() > MAX_BYTES {
        return Err(Text::new("importTooBig").arg(MAX_BYTES / (1024 * 1024)));
    }
    #[derive(Deserialize)]
    struct Head {
        format: Option<serde_json::Value>,
        version: Option<serde_json::Value>,
    }
    let head: Head =
        serde_json::from_str(text).map_err(|e| Text::new("importNotJson").arg(e.to_string()))?;
    if head.format.as_ref().and_then(|f| f.as_str()) != Some(FORMAT) {
        return Err(Text::new("importNotChats"));
    }
    let version = head.version.as_ref().and_then(|v| v.as_u64()).unwrap_or(0);
    if version == 0 {
        return Err(Text::new("importNotChats"));
    }
    if version > u64::from(VERSION) {
        return Err(Text::new("importNewer").arg(version).arg(VERSION));
    }
    // serde_json's own reader, the one that reads saved chats: a second deserializer of the
    // whole saved form (serde_path_to_error's) would cost the side panel ~100 KB of wasm. Its
    // error says the line and column.
    let archive: ChatArchive = serde_json::from_str(text).map_err(|e| {
        let place = format!("{}:{}", e.line(), e.column());
        let mut said = e.to_string();
        if let Some(at) = said.rfind(" at line ") {
            said.truncate(at);
        }
        Text::new("importUnreadable").arg(place).arg(said)
    })?;
    if archive.chats.len() > MAX_CHATS {
        return Err(Text::new("importTooMany").arg(archive.chats.len()).arg(MAX_CHATS));
    }
    let mut seen = taken.clone();
    let mut new_ids = 0;
    let mut chats = Vec::with_capacity(archive.chats.len());
    for mut chat in archive.chats {
        if !plain_id(&chat.id) || seen.contains(&chat.id) {
            chat.id = fresh(&seen, new_id);
            new_ids += 1;
        }
        seen.insert(chat.id.clone());
        chats.push(without_apps(chat));
    }
    Ok(Imported { chats, new_ids })
}

/// A chat id as the panel makes them: it becomes part of a storage key.
fn plain_id(id: &str) -> bool {
    !id.is_empty()
        && id.len() <= MAX_ID
        && id.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
}

fn fresh(seen: &HashSet<String>, new_id: &mut dyn FnMut() -> String) -> String {
    // Random ids do not collide in practice; a generator that repeats itself still ends.
    let usable = |id: &String| plain_id(id) && !seen.contains(id);
    if let Some(id) = (0..8).map(|_| new_id()).find(usable) {
        return id;
    }
    (1..).map(|n| format!("imported-{n}")).find(usable).unwrap_or_default()
}

fn without_apps(mut chat: SavedChat) -> SavedChat {
    chat.each_tool_mut(&mut |card| card.app = None);
    chat.app_resources.clear();
    chat
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::chats::saved::Entry;
    use serde_json::json;

    fn chat(id: &str, title: &str) -> SavedChat {
        serde_json::from_value(json!({
            "id": id, "title": title, "created_ms": 1, "updated_ms": 2,
            "history": [{"role": "user", "parts": [{"text": "hi"}]},
                        {"role": "model", "parts": [{"text": "hello"}], "author": "gemini-x"}],
            "entries": [{"user": {"text": "hi"}}, {"model": {"doc": "hello **you**", "thoughts": ""}}]
        }))
        .unwrap()
    }

    fn ids() -> impl FnMut() -> String {
        let mut n = 0;
        move || {
            n += 1;
            format!("new{n}")
        }
    }

    #[test]
    fn what_is_exported_reads_back_equal() {
        let chats = vec![chat("a1", "One"), chat("b2", "Two — 日本語")];
        let text = export(chats.clone(), 42);
        let back = import(&text, &HashSet::new(), &mut ids()).unwrap();
        assert_eq!(back, Imported { chats, new_ids: 0 });
        let archive: serde_json::Value = serde_json::from_str(&text).unwrap();
        assert_eq!(archive["format"], FORMAT);
        assert_eq!(archive["version"], VERSION);
        assert_eq!(archive["exported_ms"], 42);
    }

    #[test]
    fn taken_duplicate_and_odd_ids_get_new_ones_and_nothing_else_changes() {
        let text = export(
            vec![
                chat("a1", "kept"),
                chat("saved", "taken"),
                chat("a1", "twice"),
                chat("../x", "odd"),
            ],
            0,
        );
        let taken = HashSet::from(["saved".to_string(), "new1".to_string()]);
        let back = import(&text, &taken, &mut ids()).unwrap();
        let got: Vec<(&str, &str)> =
            back.chats.iter().map(|c| (c.id.as_str(), c.title.as_str())).collect();
        assert_eq!(got, [("a1", "kept"), ("new2", "taken"), ("new3", "twice"), ("new4", "odd")]);
        assert_eq!(back.new_ids, 3);
        assert_eq!(back.chats[1].entries, chat("x", "x").entries);
    }

    #[test]
    fn a_generator_that_repeats_itself_still_gives_distinct_ids() {
        let text = export(vec![chat("a", "1"), chat("a", "2"), chat("a", "3")], 0);
        let back = import(&text, &HashSet::new(), &mut || "a".to_string()).unwrap();
        let got: Vec<&str> = back.chats.iter().map(|c| c.id.as_str()).collect();
        assert_eq!(got, ["a", "imported-1", "imported-2"]);
    }

    fn error(text: &str) -> String {
        import(text, &HashSet::new(), &mut ids()).unwrap_err().to_string()
    }

    #[test]
    fn files_it_cannot_use_are_refused_with_what_is_wrong() {
        let cases = [
            ("", "importNotJson"),
            ("{\"format\": ", "importNotJson"),
            ("[1, 2]", "importNotChats"),
            ("\"text\"", "importNotJson"),
            ("{}", "importNotChats"),
            (r#"{"format": "other", "version": 1, "chats": []}"#, "importNotChats"),
            (r#"{"format": "gemipanel-chats", "version": "1", "chats": []}"#, "importNotChats"),
            (r#"{"format": "gemipanel-chats", "version": 9, "chats": []}"#, "importNewer"),
            (r#"{"format": "gemipanel-chats", "version": 1}"#, "importUnreadable"),
            (
                r#"{"format": "gemipanel-chats", "version": 1, "chats": [{"id": "a", "title": 5}]}"#,
                "importUnreadable",
            ),
        ];
        for (text, key) in cases {
            let got = import(text, &HashSet::new(), &mut ids()).unwrap_err();
            assert_eq!(got.key, key, "{text}: {got}");
        }
        // Where it went wrong is said, so a person (or a bug report) can find it.
        let bad =
            export(vec![chat("a", "1"), chat("b", "2")], 0).replacen("\"hello **you**\"", "7", 2);
        let message = error(&bad);
        assert!(message.contains("line:column 1:"), "{message}");
        assert!(message.contains("invalid type: integer `7`"), "{message}");
        assert!(!message.contains(" at line "), "said once: {message}");
        assert!(error(r#"{"format":"gemipanel-chats","version":9,"chats":[]}"#).contains('9'));
    }

    #[test]
    fn hostile_files_are_refused_without_panicking() {
        let deep = format!(
            r#"{{"format":"gemipanel-chats","version":1,"chats":[{}]}}"#,
            "[".repeat(10_000)
        );
        assert!(import(&deep, &HashSet::new(), &mut ids()).is_err());
        let huge = " ".repeat(MAX_BYTES + 1);
        assert_eq!(import(&huge, &HashSet::new(), &mut ids()).unwrap_err().key, "importTooBig");
        let many = format!(
            r#"{{"format":"gemipanel-chats","version":1,"chats":[{}]}}"#,
            vec![serde_json::to_string(&chat("a", "x")).unwrap(); MAX_CHATS + 1].join(",")
        );
        assert_eq!(import(&many, &HashSet::new(), &mut ids()).unwrap_err().key, "importTooMany");
    }

    #[test]
    fn an_imported_chat_brings_no_app_back() {
        let mut saved = chat("a", "apps");
        saved.entries.push(
            serde_json::from_value(json!({"tool": {
                "call_id": "call-1", "server_id": "s1", "server_name": "S", "tool": "show",
                "args": "{}", "status": "done", "read_only_hint": null, "trusted_server": true,
                "result": "ok",
                "app": {"server_id": "s1", "uri": "ui://x", "tool": {}, "input": {},
                        "resource": {"uri": "ui://x", "html": "<script>evil()</script>"}}
            }}))
            .unwrap(),
        );
        // The same app twice: exported as stored, its HTML once.
        let card = saved.entries[2].clone();
        saved.entries.push(card);
        let text = export(vec![saved], 0);
        assert_eq!(text.matches("evil()").count(), 1, "{text}");
        let back = import(&text, &HashSet::new(), &mut ids()).unwrap();
        let Entry::Tool(card) = &back.chats[0].entries[2] else { panic!("not a tool card") };
        assert!(card.app.is_none());
        assert_eq!(card.result.as_deref(), Some("ok"));
        assert!(back.chats[0].app_resources.is_empty(), "nor its resources' table");
    }
}
