//! Settings sync on this computer (`core::settings::sync`): the worker writes what an edit
//! changed to `chrome.storage.sync`, and takes in what changes there (another computer's edit)
//! under the settings queue, like any edit. Off until the person turns it on in the popup.

use gemipanel_browser::chrome;
use gemipanel_browser::http::now_ms;
use gemipanel_browser::messaging::{from_js, to_js};
use gemipanel_core::messages::{Event, Response};
use gemipanel_core::settings::sync::{
    self, ItemKind, Remote, SyncItem, SyncedPrefs, SyncedServer, ENABLED_KEY,
};
use gemipanel_core::settings::Settings;
use gemipanel_core::text::Text;
use wasm_bindgen::JsValue;

use crate::{ports, registry, store, worker};

pub async fn is_enabled() -> bool {
    chrome::local_get(ENABLED_KEY).await.ok().and_then(|v| v.as_bool()).unwrap_or(false)
}

/// The answer to `Request::SettingsSync`: turned on (this computer's servers join sync, then
/// it takes in what sync has), or off (nothing is written or taken any more; sync keeps its
/// copy for the other computers).
pub async fn request(enabled: Option<bool>) -> Response {
    if let Some(on) = enabled {
        if let Err(e) = chrome::local_set(ENABLED_KEY, &JsValue::from_bool(on)).await {
            return Response::Error { error: Text::new("errStorage").arg(e.message()) };
        }
        if on {
            if let Err(error) = join().await {
                return Response::Error { error };
            }
        }
    }
    match remote().await {
        Ok(remote) => {
            let servers = remote.servers.values().filter(|s| s.server.is_some()).count();
            Response::SettingsSync { enabled: is_enabled().await, servers }
        }
        Err(error) => Response::Error { error },
    }
}

/// At the worker's start: what changed in sync while it slept is taken in, and changes from
/// now on are followed.
pub fn start() {
    if !worker::with(|w| w.sync_watching.replace(true)) {
        let watching = chrome::on_sync_storage_changed(|key| {
            if ItemKind::of(key).is_some() {
                wasm_bindgen_futures::spawn_local(take_in_logged());
            }
        });
        if let Err(err) = watching {
            web_sys::console::warn_1(&format!("settings sync cannot follow changes: {err}").into());
        }
    }
    wasm_bindgen_futures::spawn_local(take_in_logged());
}

/// After an edit of this computer's took the document from `before` to `after`.
pub fn edited(before: &Settings, after: &Settings) {
    let writes = sync::changed(before, after, now_ms());
    if writes.is_empty() {
        return;
    }
    wasm_bindgen_futures::spawn_local(async move {
        if is_enabled().await {
            if let Err(error) = write(writes).await {
                web_sys::console::warn_1(&format!("settings sync: {error}").into());
            }
        }
    });
}

async fn join() -> Result<(), Text> {
    let local = store::read().await?;
    let remote = remote().await?;
    write(sync::joining(&local, &remote, now_ms())).await?;
    take_in().await
}

async fn take_in_logged() {
    if let Err(error) = take_in().await {
        web_sys::console::warn_1(&format!("settings sync: {error}").into());
    }
}

/// Merges what sync holds into the document, under the settings queue.
async fn take_in() -> Result<(), Text> {
    if !is_enabled().await {
        return Ok(());
    }
    let _turn = store::hold().await;
    let local = store::read_for_rewrite().await?;
    let next = sync::merged(&local, &remote().await?);
    if next == local {
        return Ok(());
    }
    store::write_taken_in(&next, &local.removed_in(&next)).await?;
    registry::retain(&next.servers);
    ports::broadcast(Event::SettingsChanged { settings: next.for_pages() });
    Ok(())
}

/// What the sync area holds, decoded straight from the browser's values; an item that does
/// not read (another version's, damaged) is left out.
async fn remote() -> Result<Remote, Text> {
    let items = chrome::sync_get_prefixed("sync_")
        .await
        .map_err(|e| Text::new("errStorage").arg(e.message()))?;
    let items = items.into_iter().filter_map(|(key, value)| match ItemKind::of(&key)? {
        ItemKind::Server(id) => {
            let synced = Box::new(from_js::<SyncedServer>(value).ok()?);
            Some(SyncItem::Server { id: id.to_owned(), synced })
        }
        ItemKind::Prefs => from_js::<SyncedPrefs>(value).ok().map(SyncItem::Prefs),
    });
    Ok(Remote::read(items.collect::<Vec<_>>()))
}

async fn write(writes: Vec<SyncItem>) -> Result<(), Text> {
    let mut entries = Vec::with_capacity(writes.len());
    for item in writes {
        let value = match &item {
            SyncItem::Server { synced, .. } => to_js(&**synced),
            SyncItem::Prefs(prefs) => to_js(prefs),
        };
        let value = value.map_err(|e| Text::new("errStorage").arg(e.message()))?;
        entries.push((item.key(), value));
    }
    chrome::sync_set_all(&entries)
        .await
        .map_err(|e| Text::new("errSyncNotWritten").arg(e.message()))
}
