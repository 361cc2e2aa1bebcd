//! Delete everything (`core::reset`): every piece of GemiPanel's data goes, and the worker's
//! memory with it, leaving the extension as on first install.

use std::time::Duration;

use gemipanel_browser::chrome;
use gemipanel_browser::keys::DpopKey;
use gemipanel_browser::messaging::from_js;
use gemipanel_browser::timers;
use gemipanel_core::messages::{Event, Response};
use gemipanel_core::oauth::Credentials;
use gemipanel_core::reset::Removed;
use gemipanel_core::settings::Settings;
use gemipanel_core::sync::within;
use gemipanel_core::text::Text;

use crate::{auth, ports, registry, store, vault};

/// Revocations and session ends are courtesies: a server that does not answer in this long does
/// not keep the person's data from going.
const COURTESY: Duration = Duration::from_secs(5);

pub async fn delete_everything() -> Response {
    // No settings edit runs in between, and none that waited writes the old servers back.
    let _turn = store::hold().await;
    let servers = store::read_for_rewrite().await.map(|s| s.servers.len()).unwrap_or(0);
    let stored = match chrome::local_get_prefixed("").await {
        Ok(stored) => stored,
        Err(e) => return Response::Error { error: Text::new("errStorage").arg(e.message()) },
    };
    let dpop_ids = DpopKey::ids().await.unwrap_or_default();
    let removed = Removed::tally(stored.iter().map(|(k, _)| k.as_str()), servers, dpop_ids.len());

    // Tokens: revoked where offered (as a removal does), readable only when not locked.
    for (key, value) in &stored {
        let Some(id) = key.strip_prefix(Credentials::STORAGE_PREFIX) else { continue };
        let opened = if value.is_null() { None } else { vault::open_json(value.clone()).await };
        let credentials = opened.and_then(|v| from_js::<Credentials>(v).ok());
        if within(auth::forget(id, credentials), timers::sleep(COURTESY)).await.is_none() {
            web_sys::console::warn_1(&format!("revocation for {id} did not finish").into());
        }
    }
    // MCP sessions end at the servers (HTTP DELETE), local servers stop.
    for client in registry::take_all() {
        let _ = within(client.close(), timers::sleep(COURTESY)).await;
    }
    for id in &dpop_ids {
        if let Err(e) = DpopKey::delete(id).await {
            return Response::Error { error: Text::new("errDeleteEverything").arg(e.message()) };
        }
    }
    if let Err(e) = chrome::clear_storage().await {
        return Response::Error { error: Text::new("errDeleteEverything").arg(e.message()) };
    }
    vault::forget_all();
    store::forget_cached();
    ports::broadcast(Event::SettingsChanged { settings: Settings::default().for_pages() });
    Response::DeletedEverything { removed }
}
