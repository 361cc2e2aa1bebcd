//! Saved chats in `chrome.storage.local`: an index under `chats` (most recent first) and each
//! chat under `chat:<id>`, both as JSON text. Only side panels write these keys, and every
//! change of the index runs under one lock shared by all of them (two panels in two windows
//! lose nothing). An index that cannot be read is kept aside, as stored, and rebuilt from the
//! `chat:<id>` entries: never replaced by an empty list.

use gemipanel_browser::messaging::to_js_text;
use gemipanel_browser::{chrome, locks, BrowserError};
use serde::{de::DeserializeOwned, Serialize};
use wasm_bindgen::JsValue;

use crate::transcript::{index_of, index_with, ChatSummary, SavedChat};

const INDEX: &str = "chats";
use gemipanel_core::reset::CHAT_PREFIX;
/// The Web Lock every change of the index takes.
const INDEX_LOCK: &str = "gemipanel-chats-index";

fn key(id: &str) -> String {
    format!("{CHAT_PREFIX}{id}")
}

async fn read<T: DeserializeOwned>(key: &str) -> Result<Option<T>, BrowserError> {
    let value = chrome::local_get(key).await?;
    let Some(text) = value.as_string() else { return Ok(None) };
    serde_json::from_str(&text)
        .map(Some)
        .map_err(|e| BrowserError::new(format!("reading saved chats ({key}): {e}")))
}

/// A long chat's megabytes never take one block of wasm memory (`to_js_text`).
fn to_json<T: Serialize>(value: &T) -> Result<JsValue, BrowserError> {
    to_js_text(value).map_err(|e| BrowserError::new(format!("saving chats: {e}")))
}

async fn write<T: Serialize>(key: &str, value: &T) -> Result<(), BrowserError> {
    chrome::local_set(key, &to_json(value)?).await
}

/// A chat's stored form: each app's HTML once (`SavedChat::tabulate_app_resources`).
fn stored_form(chat: &mut SavedChat) -> Result<JsValue, BrowserError> {
    chat.tabulate_app_resources();
    let json = to_json(chat);
    chat.inline_app_resources();
    json
}

/// A chat read from its stored form.
fn inlined(mut chat: SavedChat) -> SavedChat {
    chat.inline_app_resources();
    chat
}

fn parse_chat(text: &str) -> Option<SavedChat> {
    serde_json::from_str(text).ok().map(inlined)
}

async fn read_chat(id: &str) -> Result<Option<SavedChat>, BrowserError> {
    Ok(read(&key(id)).await?.map(inlined))
}

/// The history list; empty when nothing was saved yet.
pub async fn list() -> Result<Vec<ChatSummary>, BrowserError> {
    match read(INDEX).await {
        Ok(index) => Ok(index.unwrap_or_default()),
        Err(_) => {
            let _turn = locks::exclusive(INDEX_LOCK).await?;
            index().await
        }
    }
}

/// The index, or (when it cannot be read) the index rebuilt from the saved chats, the
/// damaged one kept aside first. Only with the lock held.
async fn index() -> Result<Vec<ChatSummary>, BrowserError> {
    match read(INDEX).await {
        Ok(index) => Ok(index.unwrap_or_default()),
        Err(_) => {
            let damaged = chrome::local_get(INDEX).await?;
            // Named by its content: a panel closed mid-rebuild leaves the same damage for the
            // next one, which is kept once.
            let content = damaged.as_string().unwrap_or_default();
            let key = format!("chats_rejected_{}", gemipanel_core::hash::short_hash(&content));
            chrome::local_set(&key, &damaged).await?;
            let mut chats = Vec::new();
            for (_, value) in chrome::local_get_prefixed(CHAT_PREFIX).await? {
                // A damaged chat costs only itself.
                if let Some(chat) = value.as_string().and_then(|t| parse_chat(&t)) {
                    chats.push(chat);
                }
            }
            let rebuilt = index_of(&chats);
            write(INDEX, &rebuilt).await?;
            Ok(rebuilt)
        }
    }
}

/// What a save stored.
pub struct Saved {
    pub index: Vec<ChatSummary>,
    /// The chat as stored: `chat` at its next revision, or, when another panel saved it since
    /// `chat` was read, both conversations (`chat_merge`).
    pub chat: SavedChat,
    pub merged: bool,
}

/// The (chat id, revision) pairs this page stored: its own writes come back through the storage
/// listener too, and are not news to it. Every recent one is kept, not only the last: saves
/// follow each other quickly in a fast chat, and a listener that reads the chat while a later
/// save is on its way finds an earlier revision of this page's own.
#[derive(Default)]
struct OwnWrites(std::collections::VecDeque<(String, u64)>);

impl OwnWrites {
    /// Far more saves than can be on their way at once.
    const KEPT: usize = 64;

    fn record(&mut self, id: &str, revision: u64) {
        if self.0.len() == Self::KEPT {
            self.0.pop_front();
        }
        self.0.push_back((id.to_owned(), revision));
    }

    fn forget(&mut self, id: &str, revision: u64) {
        self.0.retain(|(i, r)| !(i == id && *r == revision));
    }

    fn wrote(&self, id: &str, revision: u64) -> bool {
        self.0.iter().any(|(i, r)| i == id && *r == revision)
    }

    /// The revision of chat `id` that `index` lists, when this page wrote it.
    fn own_in(&self, index: &[ChatSummary], id: &str) -> Option<u64> {
        let revision = index.iter().find(|line| line.id == id)?.revision?;
        self.wrote(id, revision).then_some(revision)
    }
}

thread_local! {
    static WRITTEN: std::cell::RefCell<OwnWrites> = std::cell::RefCell::default();
}

/// Whether this page stored revision `revision` of chat `id` itself.
pub fn wrote(id: &str, revision: u64) -> bool {
    WRITTEN.with(|w| w.borrow().wrote(id, revision))
}

/// Writes `chat` as this page's own save, with `index` (which lists its revision) in the same
/// write: whoever sees the chat change finds its revision in the index. Only with the lock held.
async fn store_with_index(chat: &mut SavedChat, index: &[ChatSummary]) -> Result<(), BrowserError> {
    WRITTEN.with(|w| w.borrow_mut().record(&chat.id, chat.revision));
    let (chat_json, index_json) = (stored_form(chat)?, to_json(&index)?);
    let written =
        chrome::local_set_all(&[(&key(&chat.id), &chat_json), (INDEX, &index_json)]).await;
    if written.is_err() {
        // Not stored after all: another panel's save at this revision would not be this one's.
        WRITTEN.with(|w| w.borrow_mut().forget(&chat.id, chat.revision));
    }
    written
}

/// Whether the index lists the stored copy of chat `id` as this page's own save.
pub async fn stored_is_own(id: &str) -> bool {
    let index = list().await.unwrap_or_default();
    WRITTEN.with(|w| w.borrow().own_in(&index, id)).is_some()
}

/// Saves a chat; another panel's save since `chat` was read is kept with it (`chat_merge`).
pub async fn save(chat: SavedChat) -> Result<Saved, BrowserError> {
    let _turn = locks::exclusive(INDEX_LOCK).await?;
    let index = index().await?;
    let (mut stored_now, merged) = match WRITTEN.with(|w| w.borrow().own_in(&index, &chat.id)) {
        // The stored copy is this page's own save: nothing of another panel's to keep, and no
        // need to read it (a long chat with apps is megabytes of JSON).
        Some(revision) => (crate::chat_merge::over_own_save(revision, chat), false),
        None => {
            // A stored copy that does not read is written over, as before revisions.
            let stored = read_chat(&chat.id).await.ok().flatten();
            let own = stored.as_ref().is_some_and(|s| wrote(&s.id, s.revision));
            crate::chat_merge::to_store(stored, chat, own)
        }
    };
    let index = index_with(&index, stored_now.summary());
    store_with_index(&mut stored_now, &index).await?;
    Ok(Saved { index, chat: stored_now, merged })
}

/// The stored copy of chat `id`, when it reads (for a panel that has it open).
pub async fn stored(id: &str) -> Option<SavedChat> {
    read_chat(id).await.ok().flatten()
}

/// Whether `key` of `chrome.storage.local` is the history list's.
pub fn is_index(key_changed: &str) -> bool {
    key_changed == INDEX
}

/// Whether `key` of `chrome.storage.local` is chat `id`'s.
pub fn is_key_of(key_changed: &str, id: &str) -> bool {
    key_changed == key(id)
}

pub async fn load(id: &str) -> Result<SavedChat, BrowserError> {
    let chat = read_chat(id).await?;
    let chat = chat.ok_or_else(|| BrowserError::new("this chat is no longer saved"))?;
    Ok(chat.without_unagreed_apps())
}

/// Renames a saved chat; returns the new index and the revision stored.
pub async fn rename(id: &str, title: &str) -> Result<(Vec<ChatSummary>, u64), BrowserError> {
    let _turn = locks::exclusive(INDEX_LOCK).await?;
    let mut chat = load(id).await?;
    chat.title = title.trim().to_owned();
    // A new revision: a panel in another window with the chat open learns of the new title.
    chat.revision += 1;
    let mut index = index().await?;
    for line in index.iter_mut().filter(|c| c.id == id) {
        *line = chat.summary();
    }
    store_with_index(&mut chat, &index).await?;
    Ok((index, chat.revision))
}

/// Deletes a saved chat; returns the new index.
pub async fn delete(id: &str) -> Result<Vec<ChatSummary>, BrowserError> {
    let _turn = locks::exclusive(INDEX_LOCK).await?;
    let index: Vec<ChatSummary> = index().await?.into_iter().filter(|c| c.id != id).collect();
    write(INDEX, &index).await?;
    chrome::local_remove(&key(id)).await?;
    Ok(index)
}

/// Deletes the chats `ids` (several, or all); returns the new index.
pub async fn delete_many(ids: &[String]) -> Result<Vec<ChatSummary>, BrowserError> {
    let _turn = locks::exclusive(INDEX_LOCK).await?;
    let gone: std::collections::HashSet<&str> = ids.iter().map(String::as_str).collect();
    let index: Vec<ChatSummary> =
        index().await?.into_iter().filter(|c| !gone.contains(c.id.as_str())).collect();
    write(INDEX, &index).await?;
    chrome::local_remove_all(&ids.iter().map(|id| key(id)).collect::<Vec<_>>()).await?;
    Ok(index)
}

/// Every saved chat, in the index's order (most recent first); a chat that cannot be read is
/// left out.
pub async fn all() -> Result<Vec<SavedChat>, BrowserError> {
    let order = list().await?;
    let mut by_key: std::collections::HashMap<String, JsValue> =
        chrome::local_get_prefixed(CHAT_PREFIX).await?.into_iter().collect();
    Ok(order
        .iter()
        .filter_map(|line| by_key.remove(&key(&line.id)))
        .filter_map(|value| value.as_string())
        .filter_map(|text| parse_chat(&text))
        .collect())
}

/// Saves imported chats (their ids are free: `core::chats::archive::import` saw to it) in one
/// write with the index; returns the new index.
pub async fn import(chats: Vec<SavedChat>) -> Result<Vec<ChatSummary>, BrowserError> {
    let _turn = locks::exclusive(INDEX_LOCK).await?;
    let mut index = index().await?;
    let mut entries = Vec::with_capacity(chats.len() + 1);
    for mut chat in chats {
        entries.push((key(&chat.id), stored_form(&mut chat)?));
        index.push(chat.summary());
    }
    index.sort_by_key(|c| std::cmp::Reverse(c.updated_ms));
    entries.push((INDEX.to_owned(), to_json(&index)?));
    let refs: Vec<(&str, &JsValue)> = entries.iter().map(|(k, v)| (k.as_str(), v)).collect();
    chrome::local_set_all(&refs).await?;
    Ok(index)
}

#[cfg(test)]
mod tests {
    use super::OwnWrites;
    use crate::transcript::ChatSummary;

    fn line(id: &str, revision: Option<u64>) -> ChatSummary {
        ChatSummary { id: id.into(), title: "t".into(), updated_ms: 1, revision }
    }

    #[test]
    fn the_index_tells_this_pages_own_save_without_the_chat() {
        let mut written = OwnWrites::default();
        written.record("c", 7);
        let index = [line("b", Some(7)), line("c", Some(7))];
        assert_eq!(written.own_in(&index, "c"), Some(7));
        // Another panel saved since: its revision is news, and the chat is read to merge.
        assert_eq!(written.own_in(&[line("c", Some(8))], "c"), None);
        assert_eq!(written.own_in(&index, "b"), None, "another chat's line");
        assert_eq!(written.own_in(&index, "d"), None, "a chat the index does not list");
        // An index from before revisions were listed: the chat is read, as before.
        assert_eq!(written.own_in(&[line("c", None)], "c"), None);
    }

    #[test]
    fn an_earlier_save_of_this_page_is_still_its_own_after_a_later_one() {
        let mut written = OwnWrites::default();
        written.record("c", 7);
        written.record("c", 8);
        // The listener of the first write reads the chat before the second write lands.
        assert!(written.wrote("c", 7));
        assert!(written.wrote("c", 8));
        assert!(!written.wrote("c", 9), "another panel's save is news");
        assert!(!written.wrote("d", 7));
    }

    #[test]
    fn only_the_recent_saves_are_remembered() {
        let mut written = OwnWrites::default();
        for revision in 0..(OwnWrites::KEPT as u64 + 1) {
            written.record("c", revision);
        }
        assert!(!written.wrote("c", 0));
        assert!(written.wrote("c", 1));
    }
}
