//! Saved chats in `chrome.storage.local`: an index under `chats` (most recent first) and each
//! chat under `chat:<id>`, both as JSON text. Only the side panel writes these keys.
//!
//! JSON text rather than structured objects: the chat types then need only serde_json's
//! (de)serializers, which the Gemini wire types use anyway (a second set costs wasm size).

use gemipanel_browser::chrome;
use gemipanel_browser::BrowserError;
use serde::{de::DeserializeOwned, Serialize};
use wasm_bindgen::JsValue;

use crate::transcript::{index_with, ChatSummary, SavedChat};

const INDEX: &str = "chats";

fn key(id: &str) -> String {
    format!("chat:{id}")
}

async fn read<T: DeserializeOwned>(key: &str) -> Result<Option<T>, BrowserError> {
    let value = chrome::local_get(key).await?;
    let Some(text) = value.as_string() else { return Ok(None) };
    serde_json::from_str(&text)
        .map(Some)
        .map_err(|e| BrowserError::new(format!("reading saved chats ({key}): {e}")))
}

async fn write<T: Serialize>(key: &str, value: &T) -> Result<(), BrowserError> {
    let text = serde_json::to_string(value)
        .map_err(|e| BrowserError::new(format!("saving chats: {e}")))?;
    chrome::local_set(key, &JsValue::from_str(&text)).await
}

/// The history list; empty when nothing was saved yet.
pub async fn list() -> Result<Vec<ChatSummary>, BrowserError> {
    Ok(read(INDEX).await?.unwrap_or_default())
}

/// Saves a chat and returns the new index.
pub async fn save(chat: &SavedChat) -> Result<Vec<ChatSummary>, BrowserError> {
    write(&key(&chat.id), chat).await?;
    let index = index_with(&list().await.unwrap_or_default(), chat.summary());
    write(INDEX, &index).await?;
    Ok(index)
}

pub async fn load(id: &str) -> Result<SavedChat, BrowserError> {
    read(&key(id)).await?.ok_or_else(|| BrowserError::new("this chat is no longer saved"))
}

/// Renames a saved chat; returns the new index.
pub async fn rename(id: &str, title: &str) -> Result<Vec<ChatSummary>, BrowserError> {
    let mut chat = load(id).await?;
    chat.title = title.trim().to_owned();
    write(&key(id), &chat).await?;
    let mut index = list().await?;
    for line in index.iter_mut().filter(|c| c.id == id) {
        line.title = chat.title.clone();
    }
    write(INDEX, &index).await?;
    Ok(index)
}

/// Deletes a saved chat; returns the new index.
pub async fn delete(id: &str) -> Result<Vec<ChatSummary>, BrowserError> {
    let index: Vec<ChatSummary> = list().await?.into_iter().filter(|c| c.id != id).collect();
    write(INDEX, &index).await?;
    chrome::local_remove(&key(id)).await?;
    Ok(index)
}
